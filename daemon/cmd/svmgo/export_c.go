//go:build !svmgo_batch

package main

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/cgen"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

const exportCUsage = `usage: svmgo export --format c model_file dir [--name N]

Writes the model as C for a microcontroller: dir/N.h and dir/N.c (N: the
model file's base name made a C identifier, unless --name gives one). C99,
no allocation, no library call, the model in const arrays;
N_predict(const float *x) and N_decision(const float *x, float *out) (the
decision values, and it too returns the prediction) take dense rows of
N_NUM_FEATURES values and give svmgo predict's predictions.
Every kind: linear and kernel, float and quantized (int8, int16),
classification, regression and one-class; a model trained with --scale
takes raw rows. When arm-none-eabi-gcc is installed, prints the flash and
RAM the model takes on a Cortex-M4F and a Cortex-M3.
`

// exportC is svmgo export --format c.
func exportC(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, exportCUsage)
		return 0
	}
	var pos []string
	name := ""
	for i := 0; i < len(args); i++ {
		if v, ok := cutFlag(args[i], "--name"); ok {
			name = v
		} else if args[i] == "--name" || args[i] == "-name" {
			if i+1 == len(args) {
				fmt.Fprint(stderr, exportCUsage)
				return 2
			}
			name, i = args[i+1], i+1
		} else {
			pos = append(pos, args[i])
		}
	}
	if len(pos) != 2 {
		fmt.Fprint(stderr, exportCUsage)
		return 2
	}
	in, dir := pos[0], pos[1]
	if name == "" {
		name = cName(in)
	}
	m, err := readModelFile(in)
	if err != nil {
		return fail(stderr, err)
	}
	raw, err := os.ReadFile(in)
	if err != nil {
		return fail(stderr, err)
	}
	src, err := cgen.Generate(m, cgen.Options{Name: name, Version: version, Source: filepath.Base(in),
		SourceCRC: crc32.Checksum(raw, crc32.MakeTable(crc32.Castagnoli))})
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", in, err))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(stderr, err)
	}
	for _, f := range []struct {
		ext string
		b   []byte
	}{{".h", src.Header}, {".c", src.Code}} {
		if err := fileio.WriteFile(filepath.Join(dir, name+f.ext), f.b); err != nil {
			return fail(stderr, err)
		}
	}
	fmt.Fprintf(stdout, "wrote %s and %s: model arrays %d B, automatic arrays %d B a prediction\n",
		filepath.Join(dir, name+".h"), filepath.Join(dir, name+".c"), src.ArrayBytes, src.StackBytes)
	for _, t := range []cgen.Target{cgen.CortexM4F, cgen.CortexM3} {
		s, err := cgen.Measure(src, name, t)
		if errors.Is(err, exec.ErrNotFound) {
			fmt.Fprintf(stdout, "sizes: %s not installed\n", cgen.MCUCompiler)
			break
		}
		if err != nil {
			return fail(stderr, err)
		}
		fmt.Fprintf(stdout, "%s: %s\n", t.Name, s)
	}
	return 0
}

// cName makes the base name of path, without its extension, a C
// identifier of at most 40 characters.
func cName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	s := strings.Map(func(r rune) rune { // each other character (or stray byte) becomes '_'
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, base)
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "m_" + s
	}
	return s[:min(len(s), 40)]
}
