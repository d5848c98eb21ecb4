package log_test

import (
	"testing"

	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/store"
)

func TestLogOnMem(t *testing.T) {
	logtest.Run(t, func(t *testing.T) store.Storage { return store.NewMem() })
}
