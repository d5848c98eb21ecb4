// Package lessons holds Gregor's lessons: scripts of simulator commands in
// the style of etcd raft's interaction tests. A `#` line narrates, a plain
// line is a command, and the block under `----` is exactly what the engine
// printed for it. `go test ./lessons/...` replays every lesson and diffs;
// `go test ./lessons/... -rewrite` regenerates the expected output for
// review. The browser replays the same embedded files one step at a time.
//
// # Invariants
//
//   - A lesson's expected output is what sim.World printed, never text
//     written by hand: the test fails on any difference.
//   - Replaying the first N steps of a lesson always gives the same world
//     (the seed is in the file), so a step can be reached by replay alone.
//   - Every slug in Catalog has a script, and every script a Catalog entry.
//   - Every step is narrated (English `#` lines; other languages as
//     `#[TAG]` lines beside them, covering the whole lesson once begun;
//     Chinese, `#[zh]`, in every lesson), and the lines after the last
//     command recap the lesson in 3 to 5 paragraphs, as many in each
//     language (TestNarration). A lesson's Catalog entry carries its title
//     and about in the same languages (Meta.Headings).
//   - Every lesson asks at least two questions, and each has exactly one
//     choice that the output of its step shows (TestQuestions).
package lessons
