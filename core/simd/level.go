package simd

// Level names an instruction-set path.
type Level int

// The paths, slowest first.
const (
	Portable Level = iota // pure Go, every architecture
	AVX2                  // amd64 AVX2 + FMA
	AVX512                // amd64 AVX-512 F/BW/VL (+ VNNI for int8 when present)
	NEON                  // arm64 Advanced SIMD (the float32 matrix product)
)

// String names the level as Info reports it.
func (l Level) String() string {
	switch l {
	case AVX2:
		return "avx2+fma"
	case AVX512:
		return "avx512"
	case NEON:
		return "neon"
	}
	return "portable"
}

// level is the path in use; set once by init (and by tests through use).
var level Level

// vnni is whether the int8 products may use AVX-512 VNNI (VPDPBUSD).
var vnni bool

// CurrentLevel returns the path the package's functions take on this
// machine.
func CurrentLevel() Level { return level }

// Info describes the chosen paths, e.g. "avx512 (int8: vnni)", for logs
// and benchmark tables.
func Info() string {
	s := level.String()
	if level == AVX512 && vnni {
		s += " (int8: vnni)"
	}
	return s
}

// available lists the levels this machine can run, slowest first (for
// tests, which run every fast path against Portable).
func available() []Level {
	ls := []Level{Portable}
	if hasAVX2 {
		ls = append(ls, AVX2)
	}
	if hasAVX512 {
		ls = append(ls, AVX512)
	}
	if hasNEON {
		ls = append(ls, NEON)
	}
	return ls
}

// use switches to l (tests only) and returns a function restoring the
// previous level.
func use(l Level) (restore func()) {
	old, oldV := level, vnni
	level = l
	vnni = l == AVX512 && hasVNNI
	return func() { level, vnni = old, oldV }
}

func init() {
	switch {
	case hasAVX512:
		level = AVX512
	case hasAVX2:
		level = AVX2
	case hasNEON:
		level = NEON
	}
	vnni = level == AVX512 && hasVNNI
}
