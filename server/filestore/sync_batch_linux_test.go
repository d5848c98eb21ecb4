package filestore

import "testing"

func TestReleaseAtLeast(t *testing.T) {
	for release, want := range map[string]bool{
		"6.18.0-1-amd64": true, "5.8.0": true, "5.10-rc2": true, "5.7.19": false,
		"4.19.0-25-amd64": false, "10.0": true, "5": false, "x.y": false,
	} {
		if got := releaseAtLeast(release, 5, 8); got != want {
			t.Errorf("%q: at least 5.8 is %v, want %v", release, got, want)
		}
	}
}
