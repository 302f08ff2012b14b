package cgen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/libsvmgo/libsvmgo/core"
)

// Options are what Generate needs beyond the model.
type Options struct {
	// Name prefixes every symbol and names the files (Name.h, Name.c): a
	// C identifier of at most 40 characters.
	Name string
	// Version is the version of the generating program, and Source the
	// model file's name with SourceCRC the CRC-32C of its bytes: the
	// provenance comment. Empty or zero ones are left out.
	Version   string
	Source    string
	SourceCRC uint32
}

// Source is a generated model: the header and the source file, and the
// bytes of the model's const arrays (what the flash holds beyond code).
type Source struct {
	Header, Code []byte
	// ArrayBytes is the size of the const arrays the code defines.
	ArrayBytes int
	// StackBytes bounds the automatic arrays a prediction declares (the
	// decision values, votes, a scaled or quantized copy of the row).
	StackBytes int
}

// isIdentifier reports whether name is a C identifier of 1 to 40
// characters, [A-Za-z_][A-Za-z0-9_]*: a loop, not a regexp, whose package
// (and the Unicode tables it builds at start-up) every svmgo command
// would otherwise link.
func isIdentifier(name string) bool {
	if len(name) == 0 || len(name) > 40 || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, c := range []byte(name) {
		if !isIdentByte(c) {
			return false
		}
	}
	return true
}

// isIdentByte reports whether c may appear in a C identifier: a letter,
// a digit or '_'.
func isIdentByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// Generate returns the C of m. It returns an error wrapping
// ErrNotGeneratable for a kind without a generator or a model beyond its
// limits, and an error for a name that is not a C identifier.
func Generate(m core.Model, opt Options) (*Source, error) {
	if !isIdentifier(opt.Name) {
		return nil, fmt.Errorf("cgen: name %q is not a C identifier of at most 40 characters", opt.Name)
	}
	f, err := lower(m)
	if err != nil {
		return nil, err
	}
	v := newView(f, opt)
	var h, c bytes.Buffer
	if err := headerTmpl().Execute(&h, v); err != nil {
		return nil, err
	}
	if err := codeTmpl().Execute(&c, v); err != nil {
		return nil, err
	}
	return &Source{Header: h.Bytes(), Code: c.Bytes(), ArrayBytes: v.arrayBytes, StackBytes: v.StackBytes}, nil
}

// view is what the templates read: the form's numbers as C text.
type view struct {
	N, Guard                      string
	Prov                          []string
	NF, ND, NR, NrW, L            int
	Task                          string // "class", "reg" or "one"
	Linear, Kernel, Quant, Scaled bool
	KernelType                    string // "linear", "poly", "rbf", "sigmoid"
	Gamma, Coef0                  string
	Degree                        int
	Bias                          string // "" for none
	Arrays                        []array
	Dense                         bool // quantized kernel: dense layout, c0 = Σ x_j·o_j
	CodeType, CoefCodeType        string
	NeedExp, NeedTanh, NeedRound  bool
	StackBytes                    int
	// Votes: a kernel classifier, which votes pair by pair as the pass
	// over its support vectors completes them, in Live running sums
	// (pairSlots); Slots is whether they need the slot table.
	Votes, Slots bool
	Live         int
	VoteType     string
	DotTail      bool // NF is not a multiple of 4
	arrayBytes   int
}

// array is one const array of the generated file.
type array struct {
	Type, Name, Doc string
	Len             int
	Body            string
}

func newView(f *form, opt Options) *view {
	v := &view{N: opt.Name, Guard: strings.ToUpper(opt.Name) + "_H", NF: f.nf, ND: f.numDec,
		Linear: f.lin != nil, Kernel: f.ker != nil, Quant: f.bits != 0, Scaled: f.scaleF != nil,
		DotTail: f.nf%4 != 0}
	switch f.task {
	case core.TaskClassification:
		v.Task, v.NR = "class", len(f.labels)
	case core.TaskRegression:
		v.Task = "reg"
	default:
		v.Task = "one"
	}
	v.Prov = provenance(f, opt)
	if v.NR > 0 {
		v.add("int32_t", "labels", "the class labels, in the order of the decision functions", len(f.labels), ints(f.labels))
	}
	if v.Scaled {
		v.add("double", "scale_f", "scaling: x'_j = (float)(scale_o[j] + scale_f[j]·x_j)", f.nf, doubles(f.scaleF))
		v.add("double", "scale_o", "", f.nf, doubles(f.scaleO))
		v.StackBytes += 4 * f.nf
	}
	if f.lin != nil {
		v.StackBytes += 8 * f.numDec
		v.linear(f)
	} else {
		v.kernel(f)
	}
	for _, a := range v.Arrays {
		v.arrayBytes += a.Len * sizeOf(a.Type)
	}
	return v
}

func (v *view) add(typ, name, doc string, n int, body string) {
	if n == 0 { // C has no empty arrays; nothing reads this one
		n, body = 1, "0"
	}
	v.Arrays = append(v.Arrays, array{Type: typ, Name: v.N + "_" + name, Doc: doc, Len: n, Body: body})
}

func (v *view) linear(f *form) {
	lf := f.lin
	v.NrW = lf.nrW
	if lf.bias >= 0 {
		v.Bias = float(lf.bias)
		v.add("float", "bw", "the bias row's weights", len(lf.bw), floats(lf.bw))
	}
	if lf.q != nil {
		v.CodeType = codeType(f.bits)
		v.add(v.CodeType, "w", "the weight codes, feature-major: w_jk = s_k·q[j*NRW+k]", len(lf.q), int32s(lf.q))
		v.add("float", "s", "the scale s_k of each decision function's codes", len(lf.s), floats(lf.s))
	} else {
		v.add("float", "w", "the weights, feature-major: w[j*NRW+k]", len(lf.w), floats(lf.w))
	}
}

func (v *view) kernel(f *form) {
	kf := f.ker
	v.L = kf.l
	k := kf.kernel
	v.KernelType = [...]string{"linear", "poly", "rbf", "sigmoid"}[k.Type]
	v.Gamma, v.Coef0, v.Degree = float(k.Gamma), float(k.Coef0), k.Degree
	v.NeedExp = k.Type == core.RBFKernel || k.Type == core.SigmoidKernel
	v.NeedTanh = k.Type == core.SigmoidKernel
	if v.Task == "class" {
		v.add("uint32_t", "start", "class c's support vectors are start[c]..start[c+1]-1", len(kf.start), ints(kf.start))
		slot, live := pairSlots(v.NR)
		v.Votes, v.Live, v.VoteType = true, live, countType(v.NR-1)
		if live < v.ND {
			v.Slots = true
			v.add(countType(live-1), "slot", "the running sum each class pair takes (PAIR's order)", len(slot), ints(slot))
		}
		v.StackBytes += 8*live + sizeOf(v.VoteType)*v.NR
	} else {
		v.StackBytes += 8 * f.numDec
	}
	v.add("double", "rho", "rho of each decision function", len(kf.rho), doubles(kf.rho))
	if kf.ss != nil {
		v.add("double", "ss", "the squared norm of each support vector", len(kf.ss), doubles(kf.ss))
	}
	if kf.q == nil {
		v.add("float", "sv", "the support vectors, sv[i*NF+j]", len(kf.sv), floats(kf.sv))
		v.add("double", "coef", "LIBSVM's sv_coef: coef[k*L+i]", len(kf.coef), doubles(kf.coef))
		return
	}
	v.NeedRound = true
	v.Dense = kf.fo != nil
	v.CodeType = codeType(f.bits)
	if !v.Dense {
		v.CodeType = codeType(2 * f.bits) // centred codes span twice the range
	}
	v.CoefCodeType = "int16_t"
	v.StackBytes += 4 * f.nf // the quantized row
	v.add(v.CodeType, "q", "the support vector codes, q[i*NF+j]: sv_ij = o_j + a_j·q", len(kf.q), int32s(kf.q))
	v.add("float", "fa", "a_j, each feature's code step", len(kf.fa), floats(kf.fa))
	if v.Dense {
		v.add("double", "fo", "o_j, each feature's offset", len(kf.fo), doubles(kf.fo))
	}
	v.add(v.CoefCodeType, "p", "sv_coef's codes: coef[k*L+i] = cs[k]·p[k*L+i]", len(kf.p), int32s(kf.p))
	v.add("float", "cs", "sv_coef's row scales", len(kf.cs), floats(kf.cs))
}

// pairSlots assigns the running sums of nr classes' one-vs-one pairs, in
// pair order (0,1), (0,2), …, (1,2), …: the pass over the support vectors,
// class by class, begins pair (i, j) at class i and completes it after
// class j, so the pairs are the intervals [i, j] and a sum is free again
// once its pair is done. Taken by their first class, each into the lowest
// free sum, they need as many sums as the most pairs in progress at once,
// (c+1)·(nr−c)−1 at the middle class c (an interval graph's greedy
// colouring is optimal): 29 of 45 for 10 classes, 15 of 21 for 7. It
// returns each pair's sum and their number.
func pairSlots(nr int) (slot []int, live int) {
	slot = make([]int, 0, nr*(nr-1)/2)
	var doneAfter []int // per sum, the class after which its pair is done
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			s := 0
			for s < len(doneAfter) && doneAfter[s] >= i {
				s++
			}
			if s == len(doneAfter) {
				doneAfter = append(doneAfter, j)
			} else {
				doneAfter[s] = j
			}
			slot = append(slot, s)
		}
	}
	return slot, len(doneAfter)
}

func provenance(f *form, opt Options) []string {
	var p []string
	if opt.Version != "" {
		p = append(p, "Generated by svmgo "+opt.Version+" (svmgo export --format c): do not edit.")
	}
	if opt.Source != "" || opt.SourceCRC != 0 {
		p = append(p, fmt.Sprintf("Model file: %s, CRC-32C of the file %08x.", opt.Source, opt.SourceCRC))
	}
	kind := f.kind
	if f.bits != 0 {
		kind += fmt.Sprintf(" (int%d)", f.bits)
	}
	p = append(p, fmt.Sprintf("Kind: %s, %s, %d features, %d decision values.", kind, f.task, f.nf, f.numDec))
	p = append(p, "Options: "+f.settings+".")
	switch {
	case f.folded:
		p = append(p, "Scaling (--scale): folded into the weights.")
	case f.scaleF != nil:
		p = append(p, "Scaling (--scale): applied to each row; pass raw rows.")
	}
	return p
}

func sizeOf(typ string) int {
	switch typ {
	case "int8_t", "uint8_t":
		return 1
	case "int16_t", "uint16_t":
		return 2
	case "double":
		return 8
	}
	return 4
}

// countType is the narrowest unsigned type holding 0..n.
func countType(n int) string {
	switch {
	case n <= 0xff:
		return "uint8_t"
	case n <= 0xffff:
		return "uint16_t"
	}
	return "uint32_t"
}

func codeType(bits int) string {
	switch {
	case bits <= 8:
		return "int8_t"
	case bits <= 16:
		return "int16_t"
	}
	return "int32_t"
}

// The number formats: shortest forms that read back exactly (C's
// strtod and its compilers round decimal literals correctly).
func float(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

func list[T any](xs []T, f func(T) string) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
			if i%8 == 0 {
				b.WriteString("\n\t")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(f(x))
	}
	return b.String()
}

func doubles(xs []float64) string { return list(xs, float) }

func floats(xs []float32) string {
	return list(xs, func(x float32) string {
		s := strconv.FormatFloat(float64(x), 'g', -1, 32)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s + "f"
	})
}

func int32s(xs []int32) string { return list(xs, func(x int32) string { return strconv.Itoa(int(x)) }) }

func ints[T int | int32](xs []T) string {
	return list(xs, func(x T) string {
		if x == -1<<31 {
			return "(-2147483647 - 1)"
		}
		return strconv.Itoa(int(x))
	})
}

var (
	headerTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("h").Parse(headerText)) })
	codeTmpl   = sync.OnceValue(func() *template.Template { return template.Must(template.New("c").Parse(codeText)) })
)
