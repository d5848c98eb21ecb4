package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// command is one parsed line: a name, positional arguments and key=value
// options, e.g. `produce p1 orders key=k1 value=v1`.
type command struct {
	name string
	args []string
	kv   map[string]string
	keys []string // option keys in the order given
}

func parseCommand(line string) (command, error) {
	c := command{kv: map[string]string{}}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return c, nil
	}
	c.name = fields[0]
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			if k == "" {
				return c, fmt.Errorf("malformed option %q", f)
			}
			if _, dup := c.kv[k]; !dup {
				c.keys = append(c.keys, k)
			}
			c.kv[k] = v
			continue
		}
		c.args = append(c.args, f)
	}
	return c, nil
}

func (c command) arg(i int, what string) (string, error) {
	if i >= len(c.args) {
		return "", fmt.Errorf("%s: missing %s", c.name, what)
	}
	return c.args[i], nil
}

func (c command) has(flag string) bool {
	for _, a := range c.args {
		if a == flag {
			return true
		}
	}
	return false
}

func (c command) int(key string, def int64) (int64, error) {
	v, ok := c.kv[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s=%q is not a number", c.name, key, v)
	}
	return n, nil
}

// duration reads "250", "250ms", "30s" or "5m" as milliseconds.
func duration(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "ms"):
		s = strings.TrimSuffix(s, "ms")
	case strings.HasSuffix(s, "s"):
		s, mult = strings.TrimSuffix(s, "s"), 1000
	case strings.HasSuffix(s, "m"):
		s, mult = strings.TrimSuffix(s, "m"), 60000
	case strings.HasSuffix(s, "h"):
		s, mult = strings.TrimSuffix(s, "h"), 3600000
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 500ms, 30s)", s)
	}
	return n * mult, nil
}

// splitTP reads "orders-3" as topic orders, partition 3.
func splitTP(s string) (string, int32, error) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return "", 0, fmt.Errorf("%q is not topic-partition (e.g. orders-0)", s)
	}
	p, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || p < 0 {
		return "", 0, fmt.Errorf("%q is not topic-partition (e.g. orders-0)", s)
	}
	return s[:i], int32(p), nil
}

var commands = map[string]func(*World, command) error{}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
