package main

// This file is copied, under the package's own name, into each package of
// templ's copy that compiles a regular expression (slimRegexps): templ
// compiles five fixed patterns at start-up (CSS property names and values
// in safehtml, JS function names in scripttemplate.go), which alone keep
// regexp, regexp/syntax and unicode's tables in the browser build, 100 KB
// gzipped. Each stands in for regexp.MustCompile(expr).MatchString and
// answers as it does for every string (patterns_test.go checks each
// against regexp); an expr without a matcher here panics at start-up, so
// a templ upgrade that adds a pattern fails the browser tests instead of
// passing unchecked.

// slimPattern is a fixed regular expression's MatchString.
type slimPattern func(string) bool

// MatchString reports whether s matches the pattern.
func (p slimPattern) MatchString(s string) bool { return p(s) }

// slimCompile returns the matcher of expr, one of templ's patterns.
func slimCompile(expr string) slimPattern {
	switch expr {
	case `^[-a-zA-Z]+$`:
		return func(s string) bool { return s != "" && slimAll(s, "-") }
	case `^[a-zA-Z-]*$`:
		return func(s string) bool { return slimAll(s, "-") }
	case `^[a-zA-Z][- a-zA-Z]+$`:
		return func(s string) bool { return len(s) > 1 && slimAll(s[:1], "") && slimAll(s[1:], "- ") }
	case `^(?:[*/]?(?:[0-9a-zA-Z+-.!#%_ \t]|$))*$`:
		return slimCSSValue
	case `^[$_a-zA-Z][$_a-zA-Z0-9]*(\.[$_a-zA-Z][$_a-zA-Z0-9]*)*$`:
		return slimJSName
	}
	panic("slimtempl: no matcher for " + expr)
}

// slimAll reports whether every byte of s is an ASCII letter or one of
// extra.
func slimAll(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if (c < 'a' || c > 'z') && !slimIn(s[i], extra) {
			return false
		}
	}
	return true
}

func slimIn(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// slimCSSValue: bytes of the class [0-9a-zA-Z+-.!#%_ \t] ('+'-'.' is the
// range + , - .), each '*' or '/' followed by one of them or by the end.
func slimCSSValue(s string) bool {
	class := func(c byte) bool { return slimAll(string(c), "0123456789+,-.!#%_ \t") }
	for i := 0; i < len(s); i++ {
		if s[i] == '*' || s[i] == '/' {
			if i+1 < len(s) && !class(s[i+1]) {
				return false
			}
		} else if !class(s[i]) {
			return false
		}
	}
	return true
}

// slimJSName: identifiers of [$_a-zA-Z][$_a-zA-Z0-9]* joined by dots.
func slimJSName(s string) bool {
	start := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !start:
			start = true
		case slimAll(string(c), "$_"), !start && c >= '0' && c <= '9':
			start = false
		default:
			return false
		}
	}
	return !start
}
