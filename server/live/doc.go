// Package live is the native server's live trace: every request a real
// client sends and every response the broker gives it, published by the
// engine as an Event and streamed to watchers over a websocket (GET
// /live/ws) and a plain page (GET /live).
//
// The engine publishes from its one goroutine; each watcher has its own
// bounded buffer and its own writer goroutine. A watcher too slow to keep
// up loses events, counted and reported to it as "skipped"; the broker
// never waits for a watcher.
//
// # Invariants
//
//   - Publishing never blocks: a full watcher buffer drops the event and
//     counts it in that watcher's skipped counter, nothing else.
//   - With no watcher, a hook costs one atomic load (Hub.Watched); no
//     Event is built.
//   - A watcher receives the events it selected in the order the engine
//     published them, so per connection in request order, each once.
//   - Every message to a watcher is a JSON object with a "type"; every
//     message from a watcher is a Control of at most MaxControlBytes, and
//     anything else closes that socket with a reason.
package live
