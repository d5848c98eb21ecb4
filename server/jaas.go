package server

import (
	"fmt"
	"strings"
	"unicode"
)

// A JAAS line as Kafka reads sasl.jaas.config (KIP-85): one login module,
// its control flag, options name=value (a value in double quotes may hold
// spaces and \" escapes), and a closing semicolon:
//
//	org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="s" user_broker="s";
//	org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="s";
//
// username and password are what the node authenticates with; each
// user_<name> option of a PLAIN line is a user the listener accepts.

// loginModules are the modules of each mechanism.
var loginModules = map[string]string{
	"PLAIN":         "org.apache.kafka.common.security.plain.PlainLoginModule",
	"SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
	"SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}

type jaas struct {
	user, password string
	users          map[string]string // user_<name> options, by name
}

// parseJAAS parses the JAAS line of setting key for mechanism mech.
func parseJAAS(key, line, mech string) (jaas, error) {
	j := jaas{users: map[string]string{}}
	bad := func(format string, args ...any) (jaas, error) {
		return jaas{}, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...))
	}
	s := strings.TrimSpace(line)
	if !strings.HasSuffix(s, ";") {
		return bad("want a JAAS line ending in ;")
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	module, s := cutSpace(s)
	if module != loginModules[mech] {
		return bad("login module %q: %s wants %s", module, mech, loginModules[mech])
	}
	flag, s := cutSpace(strings.TrimSpace(s))
	switch flag {
	case "required", "requisite", "sufficient", "optional":
	default:
		return bad("control flag %q: want required", flag)
	}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		name, rest, ok := strings.Cut(s, "=")
		if !ok || name == "" || strings.ContainsFunc(name, func(r rune) bool { return r == '"' || unicode.IsSpace(r) }) {
			return bad("option %q: want name=value", s)
		}
		var value strings.Builder
		if strings.HasPrefix(rest, `"`) {
			i := 1
			for ; i < len(rest) && rest[i] != '"'; i++ {
				if rest[i] == '\\' && i+1 < len(rest) {
					i++
				}
				value.WriteByte(rest[i])
			}
			if i == len(rest) {
				return bad("option %s: unterminated quoted value", name)
			}
			s = rest[i+1:]
		} else {
			v, after := cutSpace(rest)
			value.WriteString(v)
			s = after
		}
		switch v := value.String(); {
		case name == "username":
			j.user = v
		case name == "password":
			j.password = v
		case strings.HasPrefix(name, "user_") && mech == "PLAIN":
			j.users[strings.TrimPrefix(name, "user_")] = v
		}
	}
	return j, nil
}

// cutSpace cuts s at its first white space (a JAAS line may span lines).
func cutSpace(s string) (before, after string) {
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}
