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
// Exit status: 0 on success, 1 on bad arguments or bad files (one line on
// standard error says what was wrong), 2 on a usage error.
//
// # Imports
//
// It may import any package of this module: it is the top of the tree, and
// nothing imports it.
package main
