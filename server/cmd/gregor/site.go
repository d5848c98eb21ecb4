package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gregor-kafka/gregor"
	"github.com/gregor-kafka/gregor/server/site"
)

// runSite is `gregor site`: the playground as static files (site.Build),
// from the browser build this binary embeds.
func runSite(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "bin/site", "directory to write the site into (emptied first)")
	root := fs.String("root", "/", "path the site is served under: / for a host of its own, /REPO/ for a project's GitHub Pages")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "Usage: gregor site [--out DIR] [--root /PATH/]")
			fs.PrintDefaults()
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("site: unexpected argument %q", fs.Arg(0))
	}
	start := time.Now()
	rep, err := site.Build(*out, site.Options{Index: gregor.IndexHTML, Assets: gregor.Assets(), Root: *root})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d files (%d pages), %.1f MB, the largest %s (%.1f MB), in %.1fs\n",
		*out, rep.Files, rep.Pages, float64(rep.Bytes)/1e6, rep.Largest, float64(rep.LargestBytes)/1e6, time.Since(start).Seconds())
	return nil
}
