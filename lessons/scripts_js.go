//go:build js

package lessons

import "fmt"

// In the browser the scripts are not in the bundle: together they weigh
// 100 KB of its 2.5 MB gzipped budget, and they grow with every lesson.
// The page fetches the script of the lesson a URL names
// (assets/lessons/SLUG.txt, served by the native build from its embedded
// copy) and hands it over with Provide before it opens the lesson.
var provided = map[string][]byte{}

// Provide keeps a lesson's script, fetched by the page.
func Provide(slug string, script []byte) { provided[slug] = script }

// Provided reports whether the page has handed over slug's script.
func Provided(slug string) bool {
	_, ok := provided[slug]
	return ok
}

// Script is a lesson's script, as the page provided it.
func Script(slug string) ([]byte, error) {
	raw, ok := provided[slug]
	if !ok {
		return nil, fmt.Errorf("lessons: the script of %q is not loaded", slug)
	}
	return raw, nil
}
