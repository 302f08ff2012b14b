// Command svmgo trains, inspects and serves libsvmgo models. Its train and
// predict commands take LIBLINEAR's and LIBSVM's options, so their users need
// not relearn them.
//
//	svmgo train [options] train_file [model_file]
//	svmgo train-linear [options] train_file [model_file]
//	svmgo predict [options] test_file model_file output_file
//	svmgo watch --root DIR [flags]
//	svmgo import model_in model_out
//	svmgo export --format libsvm|liblinear model_in model_out
//	svmgo quantize [--bits 8|16] [--check test_file] model_in model_out
//	svmgo inspect [-v] model_file
//	svmgo scale [-l lower] [-u upper] [-y y_lower y_upper] [-s save | -r restore] data_file
//	svmgo --version
//
// # Two builds
//
// The default build (go build, go install, the wheel's svmgo) runs every
// command. make's bin/svmgo is the batch build (-tags svmgo_batch): it
// leaves the server, NATS and watcher packages out, whose init functions
// would otherwise run at the start of every command (heart_scale
// train-linear: 5.2 MiB peak RSS instead of 13.0), and runs
// svmgo-daemon, the default build installed next to it, in its place for
// watch, serve and follow (batch.go), and for export --format c, whose C
// generator's text/template would bring net/url and net/netip's inits to
// every command too (export_c_batch.go).
//
// Exit status: 0 on success, 1 on bad arguments or bad files (one line on
// standard error says what was wrong), 2 on a usage error.
//
// # Imports
//
// It may import any package of this module: it is the top of the tree, and
// nothing imports it.
package main
