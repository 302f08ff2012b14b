//go:build !linux

package serve

import (
	"errors"
	"time"
)

// keepSchedSlice needs Linux's sched_setattr.
func keepSchedSlice(time.Duration, <-chan struct{}) error {
	return errors.New("serve: a scheduler slice needs Linux")
}
