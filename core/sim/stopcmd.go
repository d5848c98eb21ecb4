package sim

import "fmt"

func init() { commands["stop"] = cmdStop }

// cmdStop: stop BROKER — a graceful stop (SIGTERM): a controlled shutdown
// (KIP-631). The broker asks the controller, with its heartbeats, to move
// its leaderships away, keeps serving meanwhile, and its process ends once
// the controller lets it go (stopWhenReady), as the native server does.
func cmdStop(w *World, c command) error {
	n, err := w.brokerArg(c)
	if err != nil {
		return err
	}
	if w.cl == nil {
		return fmt.Errorf("stop: a controlled shutdown needs a cluster (use crash)")
	}
	if !n.Up || n.stopping {
		return fmt.Errorf("stop: %s is already down or stopping", n.Name)
	}
	n.stopping = true
	n.Broker.BeginControlledShutdown(w.now) // the broker says so in its log
	w.carryOut(n)
	return nil
}
