package serve

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// isTritonLayout reports whether dir is a model directory in Triton's
// layout: it holds a version directory (a decimal name) and no
// "model-<v>" file of svmgo watch's layout.
func isTritonLayout(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	triton := false
	for _, e := range entries {
		if _, ok := modeldir.ParseFileName(e.Name()); ok {
			return false
		}
		if _, ok := tritonVersion(e); ok {
			triton = true
		}
	}
	return triton
}

// tritonVersion returns the version a directory entry of a Triton model
// directory is: a directory named by a decimal number of at least 1.
func tritonVersion(e os.DirEntry) (uint64, bool) {
	if !e.IsDir() {
		return 0, false
	}
	v, err := strconv.ParseUint(e.Name(), 10, 64)
	if err != nil || v == 0 || strconv.FormatUint(v, 10) != e.Name() {
		return 0, false
	}
	return v, true
}

// tritonModelFile returns the model file of version directory vdir:
// model.svmgo, else model.onnx (the opener detects the format by content),
// "" when there is neither.
func tritonModelFile(vdir string) string {
	for _, name := range [...]string{"model.svmgo", "model.onnx"} {
		p := filepath.Join(vdir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// tritonList lists the versions of Triton model directory dir that hold a
// model file, with their paths, and its version directories, which
// modeldir.Watcher watches too: a version directory is often made first
// and its file copied in after, and the file's events are the directory's.
func tritonList(dir string) (modeldir.VersionList, error) {
	entries, err := os.ReadDir(dir)
	l := modeldir.VersionList{Files: make(map[uint64]string, len(entries))}
	for _, e := range entries {
		if v, ok := tritonVersion(e); ok {
			vdir := filepath.Join(dir, e.Name())
			l.Watched = append(l.Watched, vdir)
			if p := tritonModelFile(vdir); p != "" {
				l.Files[v] = p
			}
		}
	}
	return l, err
}
