//go:build !js

package lessons

import (
	"embed"
	"fmt"
)

//go:embed scripts/*.txt
var scripts embed.FS

// Script is a lesson's script: embedded in the native build, which serves
// it to the browser (assets/lessons/SLUG.txt; see scripts_js.go).
func Script(slug string) ([]byte, error) {
	raw, err := scripts.ReadFile("scripts/" + slug + ".txt")
	if err != nil {
		return nil, fmt.Errorf("lessons: no script for %q", slug)
	}
	return raw, nil
}

// Versions are every lesson's current version by slug (Version of its
// script): what a saved link must name (lessons/saved), and what the static
// site publishes as assets/lessons/index.json for the Worker to check.
func Versions() map[string]string {
	v := make(map[string]string, len(Catalog))
	for _, m := range Catalog {
		if raw, err := Script(m.Slug); err == nil {
			v[m.Slug] = Version(raw)
		}
	}
	return v
}
