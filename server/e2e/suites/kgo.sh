#!/usr/bin/env bash
# franz-go's own integration suite (github.com/twmb/franz-go/pkg/kgo, at the
# version go.mod pins) against a fresh bin/gregor: one broker, an empty data
# directory, Kafka's defaults. Prints "kgo: N passed, N failed, N skipped",
# then each failed test and each skip with its reason. The broker also
# listens with SASL_PLAINTEXT for the suite's SCRAM tests (a SCRAM-SHA-256
# user added at startup) and its OAUTHBEARER test (unsecured tokens, as
# Kafka's default validator takes them). `make suites` runs it;
# it is not part of `make test` (it takes minutes and measures Gregor, not a
# change). Exit status: that of the suite.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."

port=${SUITE_PORT:-19092}
sasl=${SUITE_SASL_PORT:-19093}
http=${SUITE_HTTP_PORT:-18080}
dir=$(mktemp -d)
log=bin/suites-kgo.log
./bin/gregor serve --listeners "PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$sasl" \
  --add-scram 'SCRAM-SHA-256=[name=kgo,password=kgo-secret]' \
  --sasl.enabled.mechanisms SCRAM-SHA-256,OAUTHBEARER \
  --http-addr "127.0.0.1:$http" --data-dir "$dir/data" >"$dir/broker.log" 2>&1 &
broker=$!
trap 'kill "$broker" 2>/dev/null; wait "$broker" 2>/dev/null; rm -rf "$dir"' EXIT

for _ in $(seq 100); do
  (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
  kill -0 "$broker" 2>/dev/null || { echo "suites: bin/gregor exited:"; cat "$dir/broker.log"; exit 1; }
  sleep 0.1
done

echo "suites: kgo against bin/gregor on 127.0.0.1:$port, SCRAM and OAUTHBEARER on :$sasl (all of it: $log)"
KGO_SEEDS="127.0.0.1:$port" KGO_TEST_RF=1 KGO_TEST_SCRAM_SEEDS="127.0.0.1:$sasl" KGO_TEST_SCRAM=kgo:kgo-secret \
  KGO_TEST_OAUTH_SEEDS="127.0.0.1:$sasl" go test -count 1 -timeout 20m -v github.com/twmb/franz-go/pkg/kgo >"$log" 2>&1
status=$?
# Top-level tests only: subtests are indented.
printf 'kgo: %d passed, %d failed, %d skipped\n' \
  "$(grep -c '^--- PASS' "$log")" "$(grep -c '^--- FAIL' "$log")" "$(grep -c '^--- SKIP' "$log")"
grep '^--- FAIL' "$log"
# go test -v prints a skip's reason just before its "--- SKIP" line.
grep -B1 '^--- SKIP' "$log" | grep -v -e '^--$' -e '^=== '
exit $status
