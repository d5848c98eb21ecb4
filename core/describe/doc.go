// Package describe is the teaching text of Kafka's messages: one fixed,
// readable line per request or response (Message), and error codes spelled
// as Kafka spells them today (ErrorName). The simulator prints through it,
// the lessons' golden outputs are made of it, and the ui shows it beside
// each message's fields. It is a view of a message, not framing: the codec
// is package wire.
//
// Each API's text lives in a file of its own, named after the API
// (produce.go: Produce, key 0), whose init registers it with describes;
// Message looks a message's kind (API key, request or response) up there
// and describes any other generically: its API name and the error codes
// it carries.
//
// # Invariants
//
//   - Message is a pure function of the message: the same message always
//     reads the same, so a lesson's output never depends on anything else.
//   - ErrorName uses Kafka's current name for a code (Errors.java), never a
//     retired one: code 6 is NOT_LEADER_OR_FOLLOWER (KIP-392), not
//     NOT_LEADER_FOR_PARTITION.
//   - One text per kind of message: describes registers a kind once, and
//     what a build leaves out (the cluster's reassignments and forwarded
//     requests in noquorum) is described generically there.
package describe
