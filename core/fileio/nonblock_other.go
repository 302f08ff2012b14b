//go:build !unix

package fileio

// openNonblock is 0 where there are no FIFOs to block on.
const openNonblock = 0
