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
