//go:build !linux

package main

import (
	"errors"
	"time"
)

func applySlice(int, time.Duration) { die(errors.New("-server-slice needs Linux")) }
