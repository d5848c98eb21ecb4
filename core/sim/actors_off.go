//go:build noquorum

package sim

import "github.com/gregor-kafka/gregor/core/view"

// controllerActors: a build without the quorum has no controllers.
func (w *World) controllerActors() []view.Actor { return nil }
