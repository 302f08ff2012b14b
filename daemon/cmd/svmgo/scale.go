package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

const scaleUsage = `usage: svmgo scale [options] data_file

LIBSVM's svm-scale: writes data_file scaled feature by feature to standard
output, byte for byte as svm-scale 3.24 does, and the same range files.
options:
-l lower : x scaling lower limit (default -1)
-u upper : x scaling upper limit (default +1)
-y y_lower y_upper : y scaling limits (default: no y scaling)
-s save_filename : save scaling parameters to save_filename
-r restore_filename : restore scaling parameters from restore_filename

data_file is in LIBSVM format, or CSV (label first, zero cells read as
absent features) when its name ends in .csv; the output is LIBSVM format.
Values are not clipped: a row outside the ranges scales outside [lower,
upper]. Warnings go to standard error, as svm-scale's: a feature of
data_file that a restored range file does not list is scaled to 0, and a
lower limit that maps 0 elsewhere can make sparse rows dense. Unlike
svm-scale, malformed lines (blank, bad index:value pairs, indices not
increasing, NaN or infinite values, lines over 1 MiB) are errors, with
file and line, and data_file and the range file must be regular files
(not a FIFO or a device). A feature whose range is too narrow to scale
in float32 (a denormal wide) is dropped, as a constant one is. Memory
follows the features present, whatever their indices.
To keep the scaling with the model instead, see train --scale.
`

// scaleCmd is svm-scale.
func scaleCmd(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, scaleUsage)
		return 0
	}
	lower, upper := -1.0, 1.0
	var y *[2]float64
	var save, restore string
	i := 0
	num := func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("scale: %q is not a number", s)
		}
		return v, nil
	}
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) == 2; i++ {
		opt := args[i]
		need := 1
		if opt == "-y" {
			need = 2
		}
		if i+need >= len(args) {
			fmt.Fprint(stderr, scaleUsage)
			return 2
		}
		var err error
		switch opt {
		case "-l":
			lower, err = num(args[i+1])
		case "-u":
			upper, err = num(args[i+1])
		case "-y":
			var a, b float64
			if a, err = num(args[i+1]); err == nil {
				b, err = num(args[i+2])
			}
			y = &[2]float64{a, b}
		case "-s":
			save = args[i+1]
		case "-r":
			restore = args[i+1]
		default:
			fmt.Fprintf(stderr, "svmgo: scale: unknown option %s\n%s", opt, scaleUsage)
			return 2
		}
		if err != nil {
			return fail(stderr, err)
		}
		i += need
	}
	if len(args)-i != 1 {
		fmt.Fprint(stderr, scaleUsage)
		return 2
	}
	data := args[i]
	if !(upper > lower) || (y != nil && !(y[1] > y[0])) {
		return fail(stderr, errors.New("scale: inconsistent lower/upper specification"))
	}
	if save != "" && restore != "" {
		return fail(stderr, errors.New("scale: cannot use -r and -s simultaneously"))
	}
	format := scale.LIBSVM
	if strings.HasSuffix(strings.ToLower(data), ".csv") {
		format = scale.CSV
	}

	// Both files are read as the data readers read theirs: regular files
	// only (a FIFO would hang the two passes, /dev/zero never end) and
	// lines of at most scale.MaxLineBytes.
	f, _, err := fileio.OpenRegular(data)
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	sum, err := scale.Scan(f, data, format)
	if err != nil {
		return fail(stderr, err)
	}
	var rg *scale.Ranges
	if restore != "" {
		rf, _, err := fileio.OpenRegular(restore)
		if err != nil {
			return fail(stderr, err)
		}
		file, err := scale.ReadRanges(rf, restore)
		rf.Close()
		if err != nil {
			return fail(stderr, err)
		}
		rg = sum.Restore(file, y, func(index int) {
			fmt.Fprint(stderr, scale.UnseenWarning(index, data, restore))
		})
	} else {
		rg = sum.Fit(lower, upper, y)
	}
	if save != "" {
		if err := writeRanges(save, rg); err != nil {
			return fail(stderr, err)
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fail(stderr, err)
	}
	out := bufio.NewWriterSize(stdout, 1<<16)
	written, err := scale.Write(out, f, data, format, rg)
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return fail(stderr, err)
	}
	if written > sum.Nonzeros {
		fmt.Fprint(stderr, scale.NonzeroWarning(sum.Nonzeros, written))
	}
	return 0
}

// writeRanges writes the range file path; a failed write leaves an error,
// not a silently short file.
func writeRanges(path string, rg *scale.Ranges) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := rg.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
