package main

import (
	"fmt"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// weightFlagsUsage documents the instance-weight options of the train
// commands.
const weightFlagsUsage = `-W weight_file : instance weights, one a line for each row of train_file
   (LIBSVM's instance-weight branch, libsvm-weights): row i's C is multiplied
   by its weight, which must be positive and finite
--weight-column n : for a CSV train_file, column n (2 or more; 1 is the
   label) holds each row's instance weight instead of a feature
`

// weightFlags are the instance-weight options of a train command.
type weightFlags struct {
	file   string // -W: a weight file
	column int    // --weight-column: a CSV column
}

// takeWeightFlags removes -W file and --weight-column n (or
// --weight-column=n, one dash or two) from the options that start args,
// whose other options all take a value except -q, and returns the rest.
func takeWeightFlags(args []string) ([]string, weightFlags, error) {
	var wf weightFlags
	rest, err := takeFlags(args, []string{"-W", "--weight-column", "-weight-column"}, func(name, val string) error {
		if name == "-W" {
			wf.file = val
			return nil
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 2 {
			return fmt.Errorf("option --weight-column: %q is not a column number of 2 or more", val)
		}
		wf.column = n
		return nil
	})
	if err != nil {
		return nil, wf, err
	}
	if wf.file != "" && wf.column > 0 {
		return nil, wf, fmt.Errorf("options -W and --weight-column: give the weights one way")
	}
	return rest, wf, nil
}

// takeTrainFlags takes the read flags (takeReadFlags) and the weight
// flags (takeWeightFlags) out of a training command's options: the read
// options it returns include the CSV weight column.
func takeTrainFlags(args []string) ([]string, data.ReadOptions, weightFlags, error) {
	args, readOpt, err := takeReadFlags(args)
	if err != nil {
		return nil, readOpt, weightFlags{}, err
	}
	args, weights, err := takeWeightFlags(args)
	readOpt.WeightColumn = weights.column
	return args, readOpt, weights, err
}

// apply reads the weight file, if any, into ds's weights.
func (wf weightFlags) apply(ds *data.Dataset) error {
	if wf.file == "" {
		return nil
	}
	return data.ApplyWeightFile(ds, wf.file)
}
