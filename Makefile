# Gregor: one Kafka engine, two homes. `make run` and `make test` are all the
# set-up a fresh clone needs.
GO      ?= go
ADDR    ?= 127.0.0.1:9092
HTTP    ?= 127.0.0.1:8080
DATA    ?= ./data
# The browser build: the root package embeds this directory, so bin/gregor
# serves the playground by itself.
DIST    := wasm/dist

.PHONY: build run cluster test check-fmt vet wasm wasm-core generate check-templ bench clean

build: wasm
	$(GO) build -o bin/gregor ./server/cmd/gregor

run: build
	./bin/gregor serve --kafka-addr $(ADDR) --http-addr $(HTTP) --data-dir $(DATA)

# Three brokers on 127.0.0.1 forming one cluster (each a broker and a voter
# of the metadata quorum): Kafka on 9092/9093/9094, HTTP on 8080/8081/8082,
# the quorum on 9192/9193/9194, data in $(DATA)/1..3. In the foreground;
# Ctrl-C stops all three.
QUORUM  := 1@127.0.0.1:9192,2@127.0.0.1:9193,3@127.0.0.1:9194
cluster: build
	@pids=""; \
	for i in 1 2 3; do \
		./bin/gregor serve --node-id $$i --kafka-addr 127.0.0.1:$$((9091+i)) --http-addr 127.0.0.1:$$((8079+i)) \
			--controller-addr 127.0.0.1:$$((9191+i)) --controller-quorum $(QUORUM) --data-dir $(DATA)/$$i & \
		pids="$$pids $$!"; \
	done; \
	trap 'kill -INT $$pids 2>/dev/null' INT TERM; \
	wait; wait

test: check-fmt vet check-templ wasm-core
	$(GO) test -count=1 -timeout 12m ./...

check-fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "not gofmt'd:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm ./wasm/play

# The browser build: the engine, the lessons and the ui in one wasm, served
# gzipped (only the .gz is kept, and embedded), plus Go's loader. Built
# without the metadata quorum (-tags noquorum: etcd raft and protobuf would
# add 1 MB gzipped to lessons that run one broker) and without inlining
# (-l: 6% smaller gzipped, no measurable loss; wasm/browsertest measures
# it). zopfli
# writes plain gzip 4% smaller than gzip -9 (it keeps the download under
# 2.5 MB) but takes half a minute, so it runs only when the wasm changed.
wasm:
	@mkdir -p bin $(DIST)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -tags noquorum -gcflags=all=-l -ldflags='-s -w' -o bin/gregor.wasm.new ./wasm
	@if cmp -s bin/gregor.wasm.new bin/gregor.wasm && [ -s $(DIST)/gregor.wasm.gz ]; then \
		rm bin/gregor.wasm.new; \
	else \
		mv bin/gregor.wasm.new bin/gregor.wasm; \
		if command -v zopfli >/dev/null; then zopfli --i1 -c bin/gregor.wasm > $(DIST)/gregor.wasm.gz; \
		else echo "zopfli not found: gzip -9 instead (apt-get install zopfli for a smaller download)"; \
			gzip -9 -n -c bin/gregor.wasm > $(DIST)/gregor.wasm.gz; fi; \
	fi
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(DIST)/wasm_exec.js
	@echo "gregor.wasm: $$(wc -c < bin/gregor.wasm) bytes, $$(wc -c < $(DIST)/gregor.wasm.gz) gzipped"

# core/ must build for the browser: no I/O, no syscalls. So must the whole
# browser build.
wasm-core:
	GOOS=js GOARCH=wasm $(GO) build ./core/... ./wasm ./wasm/play

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

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./server/bench/

clean:
	rm -rf bin $(DIST)/gregor.wasm.gz $(DIST)/wasm_exec.js
