package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// maxLineBytesFlag bounds the lines of the data files train, train-linear,
// predict and quantize --check read, as --ingest.max-line-bytes does for
// the daemon's batches; both default to data.DefaultMaxLineBytes.
const maxLineBytesFlag = "--max-line-bytes"

// readFlagsUsage documents maxLineBytesFlag in the commands' usage.
var readFlagsUsage = fmt.Sprintf(`--max-line-bytes n : refuse a data file with a line longer than n bytes
   (default %d); a data file must be a regular file
`, data.DefaultMaxLineBytes)

// takeReadFlags removes --max-line-bytes n (or --max-line-bytes=n, with one
// dash or two) from the options that start args, whose other options all
// take a value except -q, as LIBLINEAR's, svm-train's and svm-predict's
// do, and returns the rest with the read options it sets.
func takeReadFlags(args []string) ([]string, data.ReadOptions, error) {
	opt := data.ReadOptions{MaxLineBytes: data.DefaultMaxLineBytes}
	rest := make([]string, 0, len(args))
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		if name != maxLineBytesFlag && name != maxLineBytesFlag[1:] {
			rest = append(rest, args[i])
			if args[i] != "-q" && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, opt, fmt.Errorf("option %s needs a value", maxLineBytesFlag)
			}
			i++
			val = args[i]
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return nil, opt, fmt.Errorf("option %s: %q is not a positive number of bytes", maxLineBytesFlag, val)
		}
		opt.MaxLineBytes = n
	}
	return append(rest, args[i:]...), opt, nil
}
