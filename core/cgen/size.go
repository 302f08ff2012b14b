package cgen

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Target is a microcontroller the generated code is compiled for: a name
// and arm-none-eabi-gcc's flags for it.
type Target struct {
	Name  string
	Flags []string
}

// The Cortex-M targets the tests run under qemu: an M4 with its
// single-precision FPU (double arithmetic is libgcc's software either way)
// and an M3 without one.
var (
	CortexM4F = Target{Name: "cortex-m4f", Flags: []string{"-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"}}
	CortexM3  = Target{Name: "cortex-m3", Flags: []string{"-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"}}
)

// MCUCompiler is the cross compiler Measure runs.
const MCUCompiler = "arm-none-eabi-gcc"

// Size is what a generated model takes on a target, from its object file
// (the sections arm-none-eabi-size reports) and -fstack-usage.
type Size struct {
	// Text is the code, Rodata the const data (the model's arrays and the
	// code's constants), Data and BSS the writable data (0 for generated
	// code: it keeps no state).
	Text, Rodata, Data, BSS int
	// Stack bounds the stack a prediction takes: the frames of every
	// function the object keeps (inlined ones are in their callers'),
	// predict's or decision's, whichever is larger, counted once. The
	// software floating-point helpers of libgcc a target without a double
	// FPU calls add their own few dozen bytes.
	Stack int
	// Arrays is the model's const arrays (Source.ArrayBytes).
	Arrays int
}

// Flash is what the model takes in flash: code, constants, initialised data.
func (s Size) Flash() int { return s.Text + s.Rodata + s.Data }

// RAM is what a prediction takes in RAM: the data and the stack.
func (s Size) RAM() int { return s.Data + s.BSS + s.Stack }

// Code is the flash beyond the model's arrays: the code and its constants.
func (s Size) Code() int { return s.Flash() - s.Arrays }

// String is the line svmgo export prints.
func (s Size) String() string {
	return fmt.Sprintf("flash %d B (text %d + rodata %d + data %d; model arrays %d, code beyond them %d), RAM %d B (data %d + bss %d + stack %d)",
		s.Flash(), s.Text, s.Rodata, s.Data, s.Arrays, s.Code(), s.RAM(), s.Data, s.BSS, s.Stack)
}

// Measure compiles src (generated with the given name) for t with
// MCUCompiler at -Os in a temporary directory and returns its sizes. It
// returns exec.ErrNotFound (wrapped) when the compiler is not installed.
func Measure(src *Source, name string, t Target) (Size, error) {
	cc, err := exec.LookPath(MCUCompiler)
	if err != nil {
		return Size{}, err
	}
	dir, err := os.MkdirTemp("", "svmgo-cgen-")
	if err != nil {
		return Size{}, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, name+".h"), src.Header, 0o644); err != nil {
		return Size{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".c"), src.Code, 0o644); err != nil {
		return Size{}, err
	}
	args := append(MeasureFlags(t), "-c", "-o", name+".o", name+".c")
	cmd := exec.Command(cc, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return Size{}, fmt.Errorf("cgen: %s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
	return MeasureObject(dir, name, src.ArrayBytes)
}

// MeasureFlags are the compiler flags Measure compiles with for t:
// optimised for size, freestanding, with -fstack-usage.
func MeasureFlags(t Target) []string {
	return append(append([]string{}, t.Flags...), "-std=c99", "-Os", "-ffreestanding", "-fstack-usage")
}

// MeasureObject returns the sizes of dir/name.o, compiled with
// MeasureFlags (its stack usage in dir/name.su), holding arrays bytes of
// model arrays.
func MeasureObject(dir, name string, arrays int) (Size, error) {
	s := Size{Arrays: arrays}
	if err := readSections(&s, filepath.Join(dir, name+".o")); err != nil {
		return Size{}, err
	}
	su, err := os.ReadFile(filepath.Join(dir, name+".su"))
	if err != nil {
		return Size{}, err
	}
	s.Stack, err = stackBound(su, name)
	return s, err
}

// readSections adds the object's section sizes to s, by
// arm-none-eabi-size -A.
func readSections(s *Size, obj string) error {
	out, err := exec.Command("arm-none-eabi-size", "-A", obj).Output()
	if err != nil {
		return fmt.Errorf("cgen: arm-none-eabi-size -A %s: %w", obj, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		switch sec := f[0]; {
		case strings.HasPrefix(sec, ".text"):
			s.Text += n
		case strings.HasPrefix(sec, ".rodata"):
			s.Rodata += n
		case strings.HasPrefix(sec, ".data"):
			s.Data += n
		case strings.HasPrefix(sec, ".bss"):
			s.BSS += n
		}
	}
	return sc.Err()
}

// stackBound reads -fstack-usage's lines ("file:line:col:function<TAB>bytes<TAB>kind")
// and bounds the deepest call chain: every frame, the two entry points'
// counted once (the larger). A "dynamic" frame cannot be bounded: an error.
func stackBound(su []byte, name string) (int, error) {
	total, entry := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(su))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			continue
		}
		if strings.Contains(f[2], "dynamic") && !strings.Contains(f[2], "bounded") {
			return 0, fmt.Errorf("cgen: unbounded stack frame: %s", sc.Text())
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return 0, fmt.Errorf("cgen: stack usage line %q", sc.Text())
		}
		fn := f[0][strings.LastIndex(f[0], ":")+1:]
		if fn == name+"_predict" || fn == name+"_decision" {
			entry = max(entry, n)
			continue
		}
		total += n
	}
	return total + entry, sc.Err()
}
