package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: svmgo <command> [arguments]

commands:
  train [options] train_file [model_file]          train a kernel SVM (LIBSVM's svm-train)
  train-linear [options] train_file [model_file]   train a linear SVM (LIBLINEAR's train)
  predict [options] test_file model_file output_file  predict a data file (svm-predict)
  grid [grid_options] [options] dataset            search C and gamma by cross-validation (grid.py)
  watch --root DIR [flags]                          ingest batches, retrain warm, publish models
  serve --repository DIR [flags]                    serve models over the Open Inference Protocol (REST, gRPC)
  follow --nats URL --bucket B --models DIR         mirror a NATS object-store bucket of models into DIR
  import model_in model_out                         convert a LIBSVM or LIBLINEAR text model
  export --format libsvm|liblinear model_in model_out  write a model as LIBSVM or LIBLINEAR text
  export --format c model_in dir [--name N]         write a model as C for a microcontroller
  quantize [--bits 8|16] [--check test_file] model_in model_out
                                                    make an int8 or int16 model from a float one
  inspect [-v] model_file                           describe a model file and where its bytes go
  scale [options] data_file                         scale a data file (svm-scale), to standard output
  --version                                         print the version and what it was built from

Run 'svmgo <command> -h' for a command's options.
`

// run is the whole command, with its streams given, so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "train":
		return train(rest, stdout, stderr)
	case "train-linear":
		return trainLinear(rest, stdout, stderr)
	case "predict":
		return predict(rest, stdout, stderr)
	case "grid":
		return grid(rest, stdout, stderr)
	case "watch":
		return watch(rest, stdout, stderr)
	case "serve":
		return serveCmd(rest, stdout, stderr)
	case "follow":
		return follow(rest, stdout, stderr)
	case "import":
		return importModel(rest, stdout, stderr)
	case "export":
		return exportModel(rest, stdout, stderr)
	case "quantize":
		return quantizeCmd(rest, stdout, stderr)
	case "inspect":
		return inspect(rest, stdout, stderr)
	case "scale":
		return scaleCmd(rest, stdout, stderr)
	case "--version", "-version", "version":
		printVersion(stdout)
		return 0
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "svmgo: unknown command %q\n%s", cmd, usage)
	return 2
}

// fail prints one line for err and returns exit status 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "svmgo: %v\n", err)
	return 1
}

// wantsHelp reports whether args asks for a command's help.
func wantsHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help")
}
