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

// The CSV layout flags (data.ReadOptions.CSVHeader, CSVSkipColumns).
const (
	csvHeaderFlag = "--csv.header"
	csvSkipFlag   = "--csv.skip-columns"
)

// readFlagsUsage documents maxLineBytesFlag and the CSV flags in the
// commands' usage. A constant (TestReadFlagsUsageDefault holds its default
// to data.DefaultMaxLineBytes): the usages built from it are constants
// too, where a fmt.Sprintf and its concatenations ran at every start of
// every command.
const readFlagsUsage = `--max-line-bytes n : refuse a data file with a line longer than n bytes
   (default 1048576); a data file must be a regular file
--csv.header auto|yes|no : whether a CSV file starts with a header line (default
   auto: when its label field is not a number)
--csv.skip-columns c1,c2,... : drop these CSV columns (1-based) before the label
   column: 1 drops the index pandas' to_csv() writes first
`

// parseColumnList reads "c1,c2,..." (1-based column numbers, increasing).
func parseColumnList(s string) ([]int, error) {
	var cols []int
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 || (len(cols) > 0 && c <= cols[len(cols)-1]) {
			return nil, fmt.Errorf("columns %q: want increasing column numbers from 1, comma-separated", s)
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// takeReadFlags removes --max-line-bytes n (or --max-line-bytes=n, with one
// dash or two) from the options that start args, whose other options all
// take a value except -q, as LIBLINEAR's, svm-train's and svm-predict's
// do, and returns the rest with the read options it sets.
func takeReadFlags(args []string) ([]string, data.ReadOptions, error) {
	opt := data.ReadOptions{MaxLineBytes: data.DefaultMaxLineBytes}
	names := []string{maxLineBytesFlag, maxLineBytesFlag[1:], csvHeaderFlag, csvHeaderFlag[1:], csvSkipFlag, csvSkipFlag[1:]}
	rest, err := takeFlags(args, names, func(name, val string) error {
		var err error
		switch strings.TrimLeft(name, "-") {
		case csvHeaderFlag[2:]:
			if opt.CSVHeader, err = data.ParseCSVHeader(val); err != nil {
				return fmt.Errorf("option %s: %w", csvHeaderFlag, err)
			}
		case csvSkipFlag[2:]:
			if opt.CSVSkipColumns, err = parseColumnList(val); err != nil {
				return fmt.Errorf("option %s: %w", csvSkipFlag, err)
			}
		default:
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return fmt.Errorf("option %s: %q is not a positive number of bytes", maxLineBytesFlag, val)
			}
			opt.MaxLineBytes = n
		}
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
