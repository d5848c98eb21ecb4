// Package classroom runs classes over websockets: a teacher steps through
// a lesson (or drives the playground) and the students' pages follow.
//
// The teacher opens a room (POST /rooms, loopback or operator token) and
// gets a short join code and a teacher token, set as an HttpOnly cookie
// scoped to the room, never put in a URL. Students open /join/CODE and
// connect to GET /rooms/CODE/ws; the same endpoint with the teacher's
// cookie is the teacher's socket. The server relays positions (where the
// teacher is: lesson, seed, actions, step, language, playground commands)
// and questions; each student's wasm renders a position itself, so a room
// of fifty costs the server one small message per step per student.
//
// # Invariants
//
//   - Only the socket that presents the room's teacher token drives the
//     room (position, ask, reveal); one teacher socket at a time, the
//     newest.
//   - Every student receives every position in the order the teacher sent
//     it, numbered by Seq; a student who joins (or rejoins) gets the
//     current position, then the open question, before anything newer.
//   - Messages are typed JSON within wsmsg.Limits; a bad, oversized or
//     flooding message closes only the socket that sent it, with a close
//     code and reason. A student too slow to take its messages is closed
//     too ("too slow"), never waited for.
//   - Rooms, students per room, message size and rate are bounded
//     (Config); a room expires when nothing happened in it (no teacher
//     message, nobody joined) for Config.IdleTTL, and its sockets close.
//   - A student's answer counts once per question (a new answer replaces
//     the old); the teacher sees the tally after each answer.
package classroom
