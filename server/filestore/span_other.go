//go:build !unix

package filestore

import "errors"

// CanSendfile says Range.Sendfile works on this system.
const CanSendfile = false

// Sendfile is unix only; the server copies elsewhere.
func (r *Range) Sendfile(out int, at int64, n int) (int, error) { return 0, errors.ErrUnsupported }
