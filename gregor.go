// Package gregor holds the files that both of Gregor's homes serve.
package gregor

import _ "embed"

// IndexHTML is the playground page.
//
//go:embed index.html
var IndexHTML []byte
