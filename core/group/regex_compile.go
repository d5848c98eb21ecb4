//go:build !js

package group

import "regexp"

// compileRegex compiles a SubscribedTopicRegex anchored at both ends
// (regex.go).
func compileRegex(re string) (topicRegex, error) {
	return regexp.Compile("^(?:" + re + ")$")
}
