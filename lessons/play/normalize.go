package play

import "strings"

// Ids the engine draws from the seed's randomness: KIP-516 topic ids
// (22 characters of unpadded base64url) and the UUID suffix of KIP-394
// member ids (C1-4f721312-9f9d-451b-9aca-f44c09bc8a64), and the
// __share_group_state partition a share partition's state goes to, which
// hashes its topic id. A run with another seed prints other ids and, in
// one broker, nothing else that differs.
//
// Each is found by hand as the regular expression in its comment would
// (normalize_test.go checks them against regexp): regexp and its Unicode
// tables would cost the browser bundle 100 KB gzipped.

// normalize replaces generated ids with placeholders, UUIDs first (a
// member id's tail could pass for a topic id).
func normalize(out string) string {
	out = replaceAll(out, uuidAt, func(string) string { return "<uuid>" })
	out = replaceAll(out, shareStateAt, func(string) string { return "__share_group_state-<p> appended" })
	return replaceAll(out, topicIDAt, func(m string) string { return m[:3] + "<topic-id>" })
}

// SameOutput reports whether a step printed what the script did, the
// generated ids aside: a new seed alone does not make a step differ, only
// what the seed changes beyond its ids (a cluster's placement, say).
func SameOutput(want, got string) bool {
	return want == got || normalize(want) == normalize(got)
}

// replaceAll replaces, left to right, each non-overlapping match of s,
// whose length at is, by repl of it, as regexp's ReplaceAllStringFunc.
func replaceAll(s string, at func(s string, i int) int, repl func(string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if n := at(s, i); n > 0 {
			b.WriteString(s[last:i])
			b.WriteString(repl(s[i : i+n]))
			i += n
			last = i
			continue
		}
		i++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// uuidAt: \b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b
func uuidAt(s string, i int) int {
	if !boundary(s, i) {
		return 0
	}
	j := i
	for k, n := range []int{8, 4, 4, 4, 12} {
		if k > 0 {
			if j >= len(s) || s[j] != '-' {
				return 0
			}
			j++
		}
		if j+n > len(s) || strings.IndexFunc(s[j:j+n], func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) >= 0 {
			return 0
		}
		j += n
	}
	if !boundary(s, j) {
		return 0
	}
	return j - i
}

// shareStateAt: \b__share_group_state-[0-9]+ appended offsets
// [0-9]+\.\.[0-9]+ \(leo=[0-9]+ hw=[0-9]+\), the literals between the
// numbers below.
func shareStateAt(s string, i int) int {
	if !boundary(s, i) {
		return 0
	}
	j := i
	for _, lit := range []string{"__share_group_state-", " appended offsets ", "..", " (leo=", " hw=", ")"} {
		if lit != "__share_group_state-" {
			d := j
			for d < len(s) && '0' <= s[d] && s[d] <= '9' {
				d++
			}
			if d == j {
				return 0
			}
			j = d
		}
		if !strings.HasPrefix(s[j:], lit) {
			return 0
		}
		j += len(lit)
	}
	return j - i
}

// topicIDAt: \b(id[ =])[A-Za-z0-9_-]{22}\b
func topicIDAt(s string, i int) int {
	const n = 3 + 22
	if !boundary(s, i) || i+n > len(s) || s[i:i+2] != "id" || s[i+2] != ' ' && s[i+2] != '=' {
		return 0
	}
	for _, c := range []byte(s[i+3 : i+n]) {
		if !word(c) && c != '-' {
			return 0
		}
	}
	if !boundary(s, i+n) {
		return 0
	}
	return n
}

// boundary reports whether \b holds before s[i]: one side is an ASCII
// word byte, the other is not (or is the text's end).
func boundary(s string, i int) bool {
	return (i > 0 && word(s[i-1])) != (i < len(s) && word(s[i]))
}

// word reports whether c matches \w: [0-9A-Za-z_].
func word(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
