# Gregor: one Kafka engine, two homes. `make run` and `make test` are all the
# set-up a fresh clone needs.
GO      ?= go
ADDR    ?= 127.0.0.1:9092
HTTP    ?= 127.0.0.1:8080
DATA    ?= ./data
# The browser build: the root package embeds this directory, so bin/gregor
# serves the playground by itself.
DIST    := wasm/dist

.PHONY: build run cluster test check test-noquorum test-stress check-fmt vet wasm wasm-core generate check-templ bench bench-browser suites clean site worker worker-dev

build: wasm
	$(GO) build -o bin/gregor ./server/cmd/gregor

run: build
	./bin/gregor serve --kafka-addr $(ADDR) --http-addr $(HTTP) --data-dir $(DATA)

# Three brokers on 127.0.0.1 forming one cluster (each a broker and a voter
# of the metadata quorum): Kafka on 9092/9093/9094, HTTP on 8080/8081/8082,
# the quorum on 9192/9193/9194, data in $(DATA)/1..3. In the foreground;
# Ctrl-C stops all three.
QUORUM  := 1@127.0.0.1:9192,2@127.0.0.1:9193,3@127.0.0.1:9194
HTTPS   := 1@127.0.0.1:8080,2@127.0.0.1:8081,3@127.0.0.1:8082
cluster: build
	@pids=""; \
	for i in 1 2 3; do \
		./bin/gregor serve --node-id $$i --kafka-addr 127.0.0.1:$$((9091+i)) --http-addr 127.0.0.1:$$((8079+i)) \
			--controller-addr 127.0.0.1:$$((9191+i)) --controller-quorum $(QUORUM) --http-peers $(HTTPS) --data-dir $(DATA)/$$i & \
		pids="$$pids $$!"; \
	done; \
	trap 'kill -INT $$pids 2>/dev/null' INT TERM; \
	wait; wait

# The bundles are built first: the root package embeds them, and its test
# holds each to its size budget (play.Budgets); wasm/browsertest serves
# them as they are. The end-to-end and browser tests mostly wait (for
# sessions, elections, a page's engine), so they run side by side
# (t.Parallel, PARALLEL at a time per package), each package well under
# half of the timeout.
PARALLEL ?= 4
TESTFLAGS := -count=1 -timeout 12m -parallel $(PARALLEL)
test: check-fmt vet check-templ wasm-core wasm test-noquorum
	$(GO) test $(TESTFLAGS) ./...

# The inner loop, in under two minutes: formatting, vet, the committed
# templ code, and every test but the real-client (server/e2e) and browser
# (wasm/browsertest) ones: the engine, the simulator, the lessons' golden
# output, the server's unit tests.
check: check-fmt vet check-templ test-noquorum
	$(GO) test -count=1 -timeout 6m $$($(GO) list ./... | grep -v -e /server/e2e -e /wasm/browsertest)

# The engine and the lessons as the browser's single-broker bundle builds
# them (-tags noquorum: no metadata quorum, so no cluster). Tests of
# cluster-only code skip there and say so. Only core/ and lessons/ build
# noquorum; server/ is always the full build.
test-noquorum:
	$(GO) vet -tags noquorum ./core/... ./lessons/...
	$(GO) test -count=1 -timeout 6m -tags noquorum ./core/... ./lessons/...

# Steadiness: the end-to-end and browser tests three times in a row with
# both CPUs kept busy beside them (Debian's stress-ng); any failure stops it.
STRESS_RUNS ?= 3
test-stress: wasm
	@command -v stress-ng >/dev/null || { echo "test-stress needs stress-ng (apt-get install stress-ng)"; exit 1; }
	@for i in $$(seq $(STRESS_RUNS)); do \
		echo "==> test-stress run $$i of $(STRESS_RUNS): stress-ng --cpu 2 beside server/e2e and wasm/browsertest"; \
		stress-ng --cpu 2 --quiet & stress=$$!; start=$$(date +%s); \
		CI=true $(GO) test $(TESTFLAGS) ./server/e2e ./wasm/browsertest; rc=$$?; \
		kill $$stress; wait $$stress 2>/dev/null; \
		echo "==> run $$i: exit $$rc after $$(( $$(date +%s) - start )) s"; \
		[ $$rc -eq 0 ] || exit $$rc; \
	done

check-fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "not gofmt'd:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm ./wasm/worker ./lessons/play

# The browser build: two wasm bundles of the engine, the lessons and the ui,
# served gzipped (only the .gz is kept, and embedded), plus Go's loader.
#   gregor.wasm          every page but the multi-broker ones, and the first
#                        paint's download: built without the metadata quorum
#                        (-tags noquorum: etcd raft and protobuf would add
#                        1 MB gzipped to lessons that run one broker).
#   gregor-cluster.wasm  the same with the quorum, for the pages that run
#                        `cluster N` (the replication and leader-election
#                        lessons, a playground that starts a cluster). The
#                        page fetches it only there: the server marks such
#                        pages, and gregor.wasm hands over to it when it meets
#                        one itself (index.html, wasm/main.go).
# Both against a copy of templ without net/http (wasm/slimtempl: templ's
# HTTP handlers keep the HTTP client, TLS and x509 in the bundle, 500 KB
# gzipped that the browser never runs; nor regexp, SHA-256 or templ's
# development mode, 40 KB more), through a go.work in $(SLIM).
# Both without inlining (-l: 6% smaller gzipped for gregor.wasm, 10% for
# gregor-cluster.wasm, no measurable loss; wasm/browsertest measures it).
# They are gzipped with gzip -9 (a second or two), or, with ZOPFLI=1, with
# zopfli, whose gzip is 4% smaller but takes half a minute for gregor.wasm
# and 45 s for gregor-cluster.wasm: worth it for what is published, not
# for every test run. A bundle is recompressed only when its wasm changed
# (or ZOPFLI=1 asks for more than it has);
# `make -j2 wasm` builds both at once.
BUNDLES := gregor gregor-cluster
ZOPFLI  ?=
.PHONY: $(BUNDLES:%=wasm-%)
wasm-gregor:         WASMTAGS := -tags noquorum
wasm-gregor-cluster: WASMTAGS :=

wasm: $(BUNDLES:%=wasm-%)
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(DIST)/wasm_exec.js

SLIM    := bin/slimtempl
.PHONY: slimtempl
slimtempl:
	$(GO) run ./wasm/slimtempl $(SLIM)

$(BUNDLES:%=wasm-%): wasm-%: slimtempl
	@mkdir -p bin $(DIST)
	GOWORK=$(abspath $(SLIM))/go.work GOOS=js GOARCH=wasm $(GO) build -trimpath $(WASMTAGS) -gcflags=all=-l -ldflags='-s -w' -o bin/$*.wasm.new ./wasm
	@if cmp -s bin/$*.wasm.new bin/$*.wasm && [ -s $(DIST)/$*.wasm.gz ] && { [ -z "$(ZOPFLI)" ] || [ "$$(cat bin/$*.wasm.gzip 2>/dev/null)" = zopfli ]; }; then \
		rm bin/$*.wasm.new; \
	else \
		if [ -n "$(ZOPFLI)" ]; then zopfli --i1 -c bin/$*.wasm.new > $(DIST)/$*.wasm.gz.new; \
		else gzip -9 -n -c bin/$*.wasm.new > $(DIST)/$*.wasm.gz.new; fi && \
		mv $(DIST)/$*.wasm.gz.new $(DIST)/$*.wasm.gz && mv bin/$*.wasm.new bin/$*.wasm && \
		echo "$(if $(ZOPFLI),zopfli,gzip)" > bin/$*.wasm.gzip; \
	fi
	@echo "$*.wasm: $$(wc -c < bin/$*.wasm) bytes, $$(wc -c < $(DIST)/$*.wasm.gz) gzipped"

# The playground as static files in $(SITE), for any static host: every
# lesson's step in both languages prerendered, both bundles, the lessons'
# scripts (server/site). ROOT is the path it is served under: / for a host
# of its own (the Worker), /REPO/ for a project's GitHub Pages. What is
# published is worth zopfli's 4%: `make site ZOPFLI=1`.
SITE    ?= bin/site
ROOT    ?= /
site: build
	./bin/gregor site --out $(SITE) --root $(ROOT)

# The Cloudflare Worker (wasm/worker): the saved links in Workers KV, in
# front of the static site in $(SITE). The JavaScript that starts Go in
# the Worker comes from syumai/workers' own generator, at the version
# go.mod pins; wrangler (wasm/worker/package.json) bundles and serves it.
WORKER  := wasm/worker/build
worker: site
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(WORKER)/app.wasm ./wasm/worker
	@echo "worker: app.wasm $$(wc -c < $(WORKER)/app.wasm) bytes, $$(gzip -9 -c $(WORKER)/app.wasm | wc -c) gzipped"

# The Worker and the site on http://127.0.0.1:8787 in Cloudflare's local
# runtime (workerd, from npm), offline: no login, no telemetry, a local KV
# in wasm/worker/.wrangler.
worker-dev: worker
	cd wasm/worker && npm ci --no-audit --no-fund --loglevel=error && \
		WRANGLER_SEND_METRICS=false npx wrangler dev --local --ip 127.0.0.1 --port 8787

# core/ must build for the browser: no I/O, no syscalls. So must the whole
# browser build.
wasm-core:
	GOOS=js GOARCH=wasm $(GO) build ./core/... ./wasm ./lessons/play

# Regenerate the templ components' Go code (committed).
generate:
	$(GO) tool templ generate -path ui

# The committed _templ.go files must be what templ generates now.
check-templ:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cp ui/*.templ "$$tmp"/ && \
	$(GO) tool templ generate -path "$$tmp" >/dev/null 2>&1 && \
	stale=0 && for f in "$$tmp"/*_templ.go; do \
		if ! cmp -s "$$f" "ui/$$(basename "$$f")"; then echo "stale: ui/$$(basename "$$f") (run make generate)"; stale=1; fi; \
	done && exit $$stale

# `make bench BASELINE=<git rev>` also builds the broker of that revision
# (bin/gregor-baseline, from a detached worktree that is removed again)
# and BenchmarkBrokers runs it beside this one, reporting gregor/baseline:
# a refactor's "no loss", in the same rounds on the same machine.
bench:
ifdef BASELINE
	@rm -rf bin/baseline-src && mkdir -p bin && git worktree add -q --detach bin/baseline-src $(BASELINE) && \
		(cd bin/baseline-src && $(GO) build -o ../gregor-baseline ./server/cmd/gregor); \
		rc=$$?; git worktree remove --force bin/baseline-src; exit $$rc
	GREGOR_BENCH_BASELINE=$(CURDIR)/bin/gregor-baseline $(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./server/bench/
else
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./server/bench/
endif

# The playground in chromium, measured from outside the page: first paint
# and interactive on every home (TestHomesPaint), stepping as felt on every
# lesson (TestSteppingFelt), the Worker's routes (TestWorker/requests).
bench-browser: wasm
	@mkdir -p bin; GREGOR_BENCH=1 $(GO) test -count 1 -timeout 60m -v -run 'TestHomesPaint|TestSteppingFelt|TestWorker/requests' ./wasm/browsertest/ > bin/bench-browser.log 2>&1; \
		status=$$?; grep -E 'MEASURE|browsertest:|^(---|ok|FAIL|panic)' bin/bench-browser.log; echo "(all of it: bin/bench-browser.log)"; exit $$status

# Clients' own integration suites against a fresh bin/gregor (minutes; not
# part of make test): franz-go's kgo suite, counted as passed, failed and
# skipped (server/e2e/suites/kgo.sh).
suites: build
	@mkdir -p bin; server/e2e/suites/kgo.sh

clean:
	rm -rf bin $(DIST)/*.wasm.gz $(DIST)/wasm_exec.js $(WORKER)
