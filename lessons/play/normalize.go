package play

import "regexp"

// Ids the engine draws from the seed's randomness: KIP-516 topic ids
// (22 characters of unpadded base64url) and the UUID suffix of KIP-394
// member ids (C1-4f721312-9f9d-451b-9aca-f44c09bc8a64), and the
// __share_group_state partition a share partition's state goes to, which
// hashes its topic id. A run with another seed prints other ids and, in
// one broker, nothing else that differs.
var (
	topicID    = regexp.MustCompile(`\b(id[ =])[A-Za-z0-9_-]{22}\b`)
	uuid       = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	shareState = regexp.MustCompile(`\b__share_group_state-[0-9]+ appended offsets [0-9]+\.\.[0-9]+ \(leo=[0-9]+ hw=[0-9]+\)`)
)

// normalize replaces generated ids with placeholders, UUIDs first (a
// member id's tail could pass for a topic id).
func normalize(out string) string {
	out = uuid.ReplaceAllString(out, "<uuid>")
	out = shareState.ReplaceAllString(out, "__share_group_state-<p> appended")
	return topicID.ReplaceAllString(out, "${1}<topic-id>")
}

// SameOutput reports whether a step printed what the script did, the
// generated ids aside: a new seed alone does not make a step differ, only
// what the seed changes beyond its ids (a cluster's placement, say).
func SameOutput(want, got string) bool {
	return want == got || normalize(want) == normalize(got)
}
