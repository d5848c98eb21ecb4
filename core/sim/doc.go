// Package sim is a deterministic world of brokers and simulated clients on
// a simulated network, driven by text commands. Lessons are scripts of
// these commands; the browser playground runs the same World.
//
// Every exchange is a kmsg request or response in flight as a Message. By
// default the network delivers each message as soon as it is sent (auto);
// it can hold messages for the learner to deliver, drop, duplicate, delay or
// reorder one at a time, and faults can be armed against the next matching
// message. Brokers can crash, losing what they had not synced, and restart,
// recovering from their memory storage. Client quotas (the quota command)
// throttle as KIP-219 has it: an answer with throttle_time_ms holds that
// connection's next requests at the broker until the throttle ends, and a
// producer sends that broker nothing meanwhile.
//
// # Invariants
//
//   - Same seed and same commands give the same events, byte for byte: the
//     clock is virtual, randomness comes from the seed, and every map is
//     iterated in sorted order.
//   - Every line of output goes through describe.Message or a fixed format in
//     this package; there is no other way for text to reach a lesson.
//   - A message is delivered at most once unless it was duplicated, and never
//     to a broker that is down.
package sim
