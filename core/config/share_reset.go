package config

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ShareReset is a parsed share.auto.offset.reset (KIP-932; by_duration is
// KIP-1106, Kafka 4.1): where a share group starts reading a partition it
// never read.
type ShareReset struct {
	// Kind is "earliest", "latest" or "by_duration".
	Kind string
	// Ms is by_duration's duration: the group starts at the first record
	// whose timestamp is at most this old.
	Ms int64
}

var errShareReset = errors.New("The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.")

// isoDuration is the ISO-8601 duration Java's Duration.parse reads:
// PnDTnHnMn.nS, each part optional and signed, case-insensitive.
var isoDuration = regexp.MustCompile(`(?i)^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$`)

// ParseShareReset reads a share.auto.offset.reset value the way Kafka's
// ShareGroupAutoOffsetResetStrategy does: earliest, latest, or
// by_duration: and a non-negative ISO-8601 duration, case-insensitive.
func ParseShareReset(v string) (ShareReset, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	switch {
	case s == "earliest" || s == "latest":
		return ShareReset{Kind: s}, nil
	case strings.HasPrefix(s, "by_duration:"):
		ms, ok := parseISODuration(strings.TrimPrefix(s, "by_duration:"))
		if !ok || ms < 0 {
			return ShareReset{}, errShareReset
		}
		return ShareReset{Kind: "by_duration", Ms: ms}, nil
	}
	return ShareReset{}, errShareReset
}

func checkShareReset(v string) error {
	_, err := ParseShareReset(v)
	return err
}

// parseISODuration returns an ISO-8601 duration in milliseconds.
func parseISODuration(s string) (int64, bool) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || len(m[3]) == 1 || m[2] == "" && m[3] == "" {
		return 0, false // "P", "PT" and "P1DT" are not durations
	}
	var ms float64
	for i, unit := range map[int]float64{2: 86400e3, 4: 3600e3, 5: 60e3, 6: 1e3} {
		if m[i] != "" {
			n, err := strconv.ParseInt(m[i], 10, 64)
			if err != nil {
				return 0, false
			}
			ms += float64(n) * unit
		}
	}
	if m[7] != "" {
		frac, _ := strconv.ParseFloat("0."+m[7], 64)
		if strings.HasPrefix(m[6], "-") {
			frac = -frac
		}
		ms += frac * 1e3
	}
	if m[1] == "-" {
		ms = -ms
	}
	if math.Abs(ms) > math.MaxInt64/2 {
		return 0, false
	}
	return int64(ms), true
}
