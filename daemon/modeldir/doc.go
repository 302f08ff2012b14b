// Package modeldir opens and writes model files of every kind, and keeps a
// directory of versioned model files: atomic publishing and a watcher that
// follows the newest valid version (DESIGN.md §6).
//
// It opens and writes model files through core/modelfile's one codec
// (modelfile.Decode, Encode, ReadFile and WriteFile), which reads every
// registered kind: the float kinds, and the quantized ones, which package
// quantize registers (imported below for that).
//
// A published model is named "model-<version>.svmgo" with a decimal version
// that strictly increases; "model-<version>.onnx", an ONNX-ML file another
// pipeline dropped in, is a version too (the opener reads it by content).
// Publish writes a temporary dot-file ending in
// ".tmp", syncs it, gives it its final name and syncs the directory, so a
// reader sees either no file or a complete one. Watch loads the newest
// valid version, of any kind, and then follows the directory with
// fsnotify, swapping each newer valid version in with one atomic pointer
// store; a version that fails to load is logged and skipped while the
// current model keeps serving, and Watcher.LastSkip says why. A caller that
// serves linear float models only sets Options.LinearOnly; one whose
// directory is in another layout (Triton's "<v>/model.svmgo") lists its
// versions with Options.Versions, and the watcher follows them the same way.
//
// # Imports
//
// It may import core, core/fileio, core/modelfile and quantize; imports point
// down the package table of DESIGN.md §2, never sideways.
package modeldir
