//go:build !linux

package data

import "os"

// mapFile maps nothing outside Linux (mapfile_linux.go): ReadFile reads
// the file through its read buffer.
func mapFile(f *os.File, size int64) (mem []byte, unmap func(), ok bool) {
	return nil, nil, false
}

// readMapped runs read: there is no mapping to guard outside Linux.
func readMapped(path string, read func() error) error { return read() }

// dropPages gives back nothing: there is no mapping outside Linux.
func dropPages(mem []byte, from, to int64) int64 { return to }
