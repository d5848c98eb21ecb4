package config

import (
	"errors"
	"math"
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

// parseISODuration returns a lower-case ISO-8601 duration in
// milliseconds, as Java's Duration.parse reads it: an optional sign, p,
// days, then t and hours, minutes, seconds (with a fraction), each part
// optional, signed and in that order, and at least one of them.
func parseISODuration(s string) (int64, bool) {
	sign := 1.0
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	date, clock, hasT := strings.Cut(strings.TrimPrefix(s, "p"), "t")
	if !strings.HasPrefix(s, "p") || hasT && clock == "" || !hasT && date == "" {
		return 0, false
	}
	var ms float64
	for _, part := range []struct {
		s, units string
		scale    []float64
	}{{date, "d", []float64{86400e3}}, {clock, "hms", []float64{3600e3, 60e3, 1e3}}} {
		for next := 0; part.s != ""; {
			i := strings.IndexAny(part.s, part.units[next:])
			u := -1
			if i > 0 {
				u = strings.IndexByte(part.units, part.s[i])
			}
			n, ok := isoNumber(part.s[:max(i, 0)], u >= 0 && part.units[u] == 's')
			if u < 0 || !ok {
				return 0, false
			}
			ms += n * part.scale[u]
			next, part.s = u+1, part.s[i+1:]
		}
	}
	return int64(sign * ms), true
}

// isoNumber reads [-+]digits, with a fraction after . or , if frac.
func isoNumber(s string, frac bool) (float64, bool) {
	digits, point := 0, false
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case (c == '-' || c == '+') && i == 0:
		case (c == '.' || c == ',') && frac && !point && digits > 0:
			point = true
		default:
			return 0, false
		}
	}
	n, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
	return n, digits > 0 && err == nil && !math.IsInf(n, 0)
}
