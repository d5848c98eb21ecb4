//go:build js

package group

import "errors"

// In the browser and Workers builds no consumer subscribes by regex (the
// simulator's consumers send SubscribedTopicRegex never, and no lesson or
// playground command offers one), so regexp, its parser and Unicode's
// tables, 100 KB of the gzipped bundle, are left out: a regex, if one
// came, would be refused with INVALID_REGULAR_EXPRESSION.

var errNoRegex = errors.New("group: no regex subscriptions in the browser build")

func compileRegex(string) (topicRegex, error) { return nil, errNoRegex }
