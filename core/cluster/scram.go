package cluster

import (
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SCRAM credentials (KIP-554): managed with AlterUserScramCredentials and
// DescribeUserScramCredentials, stored in the metadata as KRaft stores
// them (UserScramCredentialRecord), so every broker of a cluster knows
// them. A credential never holds the password: the client sends a salted
// password (PBKDF2 of it with the salt and iterations it chose), and the
// metadata keeps only StoredKey = H(HMAC(salted, "Client Key")) and
// ServerKey = HMAC(salted, "Server Key") (RFC 5802), enough to verify a
// SCRAM exchange and too little to log in with.
//
// Invariants: a credential's mechanism is one of Mechanisms; its
// iterations are within [MinIterations, MaxIterations]; a user has at
// most one credential per mechanism.

// ScramCredential is a UserScramCredentialRecord.
type ScramCredential struct {
	Name       string `json:"name"`
	Mechanism  int8   `json:"mechanism"`
	Salt       []byte `json:"salt"`
	StoredKey  []byte `json:"stored_key"`
	ServerKey  []byte `json:"server_key"`
	Iterations int32  `json:"iterations"`
}

// RemoveScramCredential is a RemoveUserScramCredentialRecord.
type RemoveScramCredential struct {
	Name      string `json:"name"`
	Mechanism int8   `json:"mechanism"`
}

// The mechanisms, numbered as Kafka's ScramMechanism.
const (
	ScramSHA256 int8 = 1
	ScramSHA512 int8 = 2
)

// Kafka's bounds on a SCRAM credential's iterations.
const (
	MinIterations = 4096
	MaxIterations = 16384
)

// MechanismName is Kafka's SASL name of a mechanism, "" for an unknown one.
func MechanismName(m int8) string {
	switch m {
	case ScramSHA256:
		return "SCRAM-SHA-256"
	case ScramSHA512:
		return "SCRAM-SHA-512"
	}
	return ""
}

// MechanismOf is the mechanism of a SASL name, 0 for an unknown one.
func MechanismOf(name string) int8 {
	for _, m := range []int8{ScramSHA256, ScramSHA512} {
		if MechanismName(m) == name {
			return m
		}
	}
	return 0
}

// ScramKey keys a credential in the maps that hold them.
func ScramKey(name string, mech int8) string { return fmt.Sprintf("%d:%s", mech, name) }

// ApplyScram applies a credential record to creds; other records are
// ignored.
func ApplyScram(creds map[string]*ScramCredential, r *Record) {
	switch {
	case r.ScramCredential != nil:
		c := *r.ScramCredential
		creds[ScramKey(c.Name, c.Mechanism)] = &c
	case r.RemoveScram != nil:
		delete(creds, ScramKey(r.RemoveScram.Name, r.RemoveScram.Mechanism))
	}
}

// AlterScram validates an AlterUserScramCredentials request against the
// credentials there are, as Kafka's ScramControlManager does, and returns
// the answer and the records of the changes that are valid. An error of
// one user leaves the others' changes alone.
func AlterScram(req *kmsg.AlterUserSCRAMCredentialsRequest, creds map[string]*ScramCredential) (*kmsg.AlterUserSCRAMCredentialsResponse, []Record) {
	resp := req.ResponseKind().(*kmsg.AlterUserSCRAMCredentialsResponse)
	fail := map[string]*kerr.Error{}
	msgs := map[string]string{}
	count := map[string]int{}
	users := []string{}
	note := func(user string) {
		if count[user] == 0 {
			users = append(users, user)
		}
		count[user]++
	}
	changes := map[string][]Record{}
	seen := map[string]bool{}
	check := func(user string, mech int8) bool {
		switch {
		case user == "":
			fail[user], msgs[user] = kerr.UnacceptableCredential, "a user name cannot be empty"
		case MechanismName(mech) == "":
			fail[user], msgs[user] = kerr.UnsupportedSaslMechanism, fmt.Sprintf("unknown SCRAM mechanism %d", mech)
		case seen[ScramKey(user, mech)]:
			fail[user], msgs[user] = kerr.DuplicateResource, "a user's mechanism may change only once per request"
		default:
			seen[ScramKey(user, mech)] = true
			return true
		}
		return false
	}
	for _, d := range req.Deletions {
		note(d.Name)
		if !check(d.Name, d.Mechanism) {
			continue
		}
		if creds[ScramKey(d.Name, d.Mechanism)] == nil {
			fail[d.Name], msgs[d.Name] = kerr.ResourceNotFound, fmt.Sprintf("no %s credential for %s", MechanismName(d.Mechanism), d.Name)
			continue
		}
		changes[d.Name] = append(changes[d.Name], Record{RemoveScram: &RemoveScramCredential{Name: d.Name, Mechanism: d.Mechanism}})
	}
	for _, u := range req.Upsertions {
		note(u.Name)
		if !check(u.Name, u.Mechanism) {
			continue
		}
		switch {
		case u.Iterations < MinIterations || u.Iterations > MaxIterations:
			fail[u.Name], msgs[u.Name] = kerr.UnacceptableCredential, fmt.Sprintf("iterations %d: want %d to %d", u.Iterations, MinIterations, MaxIterations)
		case len(u.Salt) == 0 || len(u.SaltedPassword) == 0:
			fail[u.Name], msgs[u.Name] = kerr.UnacceptableCredential, "the salt and the salted password cannot be empty"
		default:
			changes[u.Name] = append(changes[u.Name], Record{ScramCredential: NewScramCredential(u.Name, u.Mechanism, u.Salt, u.SaltedPassword, u.Iterations)})
		}
	}
	var recs []Record
	for _, user := range users {
		r := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
		r.User = user
		if e := fail[user]; e != nil {
			msg := msgs[user]
			r.ErrorCode, r.ErrorMessage = e.Code, &msg
		} else {
			recs = append(recs, changes[user]...)
		}
		resp.Results = append(resp.Results, r)
	}
	return resp, recs
}

// DescribeScram answers DescribeUserScramCredentials: the mechanisms and
// iterations of each user asked for (every user for a null list), never
// the keys.
func DescribeScram(req *kmsg.DescribeUserSCRAMCredentialsRequest, creds map[string]*ScramCredential) *kmsg.DescribeUserSCRAMCredentialsResponse {
	resp := req.ResponseKind().(*kmsg.DescribeUserSCRAMCredentialsResponse)
	byUser := map[string][]*ScramCredential{}
	//purity:unordered each user's list is sorted below by its unique mechanism
	for _, c := range creds {
		byUser[c.Name] = append(byUser[c.Name], c)
	}
	var users []string
	if req.Users == nil {
		for u := range byUser {
			users = append(users, u)
		}
		sort.Strings(users)
	} else {
		for _, u := range req.Users {
			users = append(users, u.Name)
		}
	}
	asked := map[string]int{}
	for _, u := range users {
		asked[u]++
	}
	for _, u := range users {
		r := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
		r.User = u
		switch {
		case asked[u] > 1:
			r.ErrorCode = kerr.DuplicateResource.Code
		case len(byUser[u]) == 0:
			r.ErrorCode = kerr.ResourceNotFound.Code
			msg := "no SCRAM credential for " + u
			r.ErrorMessage = &msg
		}
		cs := byUser[u]
		sort.Slice(cs, func(i, j int) bool { return cs[i].Mechanism < cs[j].Mechanism })
		for _, c := range cs {
			if r.ErrorCode != 0 {
				break
			}
			ci := kmsg.NewDescribeUserSCRAMCredentialsResponseResultCredentialInfo()
			ci.Mechanism, ci.Iterations = c.Mechanism, c.Iterations
			r.CredentialInfos = append(r.CredentialInfos, ci)
		}
		resp.Results = append(resp.Results, r)
	}
	return resp
}

// ParseScramSpec parses Kafka's kafka-storage --add-scram form,
// SCRAM-SHA-256=[name=alice,password=secret] (iterations=N optional), for
// bootstrapping the first user.
func ParseScramSpec(spec string) (user, password string, mech int8, iterations int32, err error) {
	name, rest, ok := strings.Cut(spec, "=[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return "", "", 0, 0, fmt.Errorf("%q: want SCRAM-SHA-256=[name=USER,password=PASSWORD]", spec)
	}
	if mech = MechanismOf(name); mech == 0 {
		return "", "", 0, 0, fmt.Errorf("%q: unknown mechanism %s (SCRAM-SHA-256 or SCRAM-SHA-512)", spec, name)
	}
	iterations = MinIterations
	for _, kv := range strings.Split(strings.TrimSuffix(rest, "]"), ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "name":
			user = v
		case "password":
			password = v
		case "iterations":
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil || n < MinIterations || n > MaxIterations {
				return "", "", 0, 0, fmt.Errorf("%q: iterations: want %d to %d", spec, MinIterations, MaxIterations)
			}
			iterations = int32(n)
		default:
			return "", "", 0, 0, fmt.Errorf("%q: unknown key %q", spec, k)
		}
	}
	if user == "" || password == "" {
		return "", "", 0, 0, fmt.Errorf("%q: name and password are required", spec)
	}
	return user, password, mech, iterations, nil
}
