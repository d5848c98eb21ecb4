# Gregor: one Kafka engine, two homes. `make run` and `make test` are all the
# set-up a fresh clone needs.
GO      ?= go
ADDR    ?= 127.0.0.1:9092
HTTP    ?= 127.0.0.1:8080
DATA    ?= ./data

.PHONY: build run test check-fmt vet wasm-core bench clean

build:
	$(GO) build -o bin/gregor ./server/cmd/gregor

run: build
	./bin/gregor serve --kafka-addr $(ADDR) --http-addr $(HTTP) --data-dir $(DATA)

test: check-fmt vet wasm-core
	$(GO) test -count=1 -timeout 12m ./...

check-fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "not gofmt'd:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# core/ must build for the browser: no I/O, no syscalls.
wasm-core:
	GOOS=js GOARCH=wasm $(GO) build ./core/...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./server/bench/

clean:
	rm -rf bin
