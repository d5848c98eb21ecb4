// Package config defines the broker and topic settings Gregor understands,
// under Kafka's own names, with Kafka's defaults and documentation.
//
// Topic settings (segment.bytes, retention.ms, ...) fall back to a broker
// setting, their synonym (log.segment.bytes, log.retention.ms, ...), and then
// to the built-in default, exactly as Kafka resolves a topic's effective
// configuration (the DescribeConfigs synonyms of KIP-226). Group configs
// (share.auto.offset.reset, consumer.session.timeout.ms, ...; KIP-848,
// KIP-932) resolve the same way, a group's own value first, and are
// checked as a whole against the broker's group.*.min/max bounds.
//
// # Invariants
//
//   - Every Def has a Type, a Kafka default and a one-line Doc; the server's
//     --help and DescribeConfigs both render from this one table.
//   - Values are stored as the strings Kafka exchanges on the wire; Parse
//     checks them against the Def's type and bounds before they are stored.
package config
