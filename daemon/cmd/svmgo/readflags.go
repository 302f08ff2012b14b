package main

import (
	"fmt"
	"slices"
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
	rest, err := takeFlags(args, []string{maxLineBytesFlag, maxLineBytesFlag[1:]}, func(_, val string) error {
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Errorf("option %s: %q is not a positive number of bytes", maxLineBytesFlag, val)
		}
		opt.MaxLineBytes = n
		return nil
	})
	return rest, opt, err
}

// takeFlags removes the options named in names (each "-x value" or
// "-x=value") from the options that start args, whose other options all
// take a value except -q, calling set with each one's name and value, and
// returns the rest: the options left and the arguments after them.
func takeFlags(args, names []string, set func(name, val string) error) ([]string, error) {
	rest := make([]string, 0, len(args))
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		if !slices.Contains(names, name) {
			rest = append(rest, args[i])
			if args[i] != "-q" && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("option %s needs a value", name)
			}
			i++
			val = args[i]
		}
		if err := set(name, val); err != nil {
			return nil, err
		}
	}
	return append(rest, args[i:]...), nil
}
