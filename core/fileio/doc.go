// Package fileio is the one file layer of libsvmgo: atomic writes (a
// temporary file in the target directory, fsync, rename, fsync of the
// directory; DESIGN.md §6 and §8; ReplaceFile without the syncs, for
// outputs a command can make again), renames that survive a crash, the rules
// for temporary names that watchers and scans ignore, and opening a file
// for a bounded read without blocking on special files. The model file
// codec, the model directory, the daemon's store and ingestion, and the
// command all go through it, so that each of these rules exists once.
//
// # Imports
//
// It may import nothing of this module; imports point down the package table
// of DESIGN.md §2, never sideways.
package fileio
