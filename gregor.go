// Package gregor holds the files that both of Gregor's homes serve.
package gregor

import (
	"embed"
	"io/fs"
)

// IndexHTML is the playground page.
//
//go:embed index.html
var IndexHTML []byte

// dist is the browser build that `make wasm` writes (wasm/dist/README.md).
//
//go:embed wasm/dist
var dist embed.FS

// Assets is the browser build: gregor.wasm.gz, gregor-cluster.wasm.gz and
// wasm_exec.js, or only a README when `make wasm` has not run.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "wasm/dist")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}
