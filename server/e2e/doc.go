// Package e2e holds Gregor's end-to-end tests: unmodified Kafka clients
// (franz-go, sarama, kafka-go, kcat, kafkajs) against the real gregor binary,
// crash-recovery tests that SIGKILL it under load, and bad-input tests that
// send it malformed frames and bad command lines.
//
// The tests build ./server/cmd/gregor once (TestMain) and start one process
// per test on free loopback ports with a fresh data directory.
//
// # Running
//
//	go test ./server/e2e/...              # against the real binary
//	GREGOR_E2E_KFAKE=1 go test ./server/e2e/...  # against franz-go's kfake,
//	                                      # to debug the tests themselves
//
// Under kfake three TestFranz subtests fail where kfake itself departs from
// Kafka (it accepts unknown topic configs, ignores log.segment.bytes, and
// lets CreatePartitions keep the same count); the tests that need a process
// or Kafka's on-disk files skip there.
//
// With CI=true a test whose external tool (kcat, node, the kafkajs npm
// package) is missing fails instead of skipping.
//
// TestNetworkSplitAvailability runs three brokers in network namespaces
// of their own on a bridge it creates (10.99.X.0/24, routed nowhere), and
// takes their links down and up; it needs root and iproute2, and skips
// loudly without them (fails with CI=true).
//
// # Invariants
//
//   - No test sleeps to synchronise: it polls a condition with a deadline.
//   - Every test uses its own topic names and its own broker process.
//   - The default (and CI) target is the real binary; kfake is only a
//     debugging aid for the test code, and tests that need a process or
//     Kafka's on-disk layout skip under it.
package e2e
