package cgen

// The C templates. Symbols are prefixed with the model's name ({{.N}});
// only what the model needs is printed (no unused function, which
// -Wall -Wextra -Werror would refuse).

const headerText = `/*
{{- range .Prov}}
 * {{.}}
{{- end}}
 */
#ifndef {{.Guard}}
#define {{.Guard}}

#include <stdint.h>

#define {{.N}}_NUM_FEATURES {{.NF}}
#define {{.N}}_NUM_DECISIONS {{.ND}}
{{- if .NR}}
#define {{.N}}_NUM_CLASSES {{.NR}}
{{- end}}

#ifdef __cplusplus
extern "C" {
#endif
{{if .NR}}
/* The class labels, in the order of the decision functions. */
extern const int32_t {{.N}}_labels[{{.N}}_NUM_CLASSES];
{{end}}
/*
 * {{.N}}_predict returns the prediction for the dense row x of
 * {{.N}}_NUM_FEATURES values: {{if eq .Task "class"}}the class label{{else if eq .Task "reg"}}the regression value{{else}}+1 inside the support, -1 outside{{end}}, as svmgo predict gives it.
 * It reads x during the call only, allocates nothing, keeps no state
 * (it is reentrant) and declares {{.StackBytes}} bytes of automatic arrays.
 */
double {{.N}}_predict(const float *x);

/*
 * {{.N}}_decision writes the {{.N}}_NUM_DECISIONS decision values of x to
 * out[0..{{.N}}_NUM_DECISIONS-1], in the library's order, and returns the
 * prediction {{.N}}_predict returns (one pass gives both).
 */
double {{.N}}_decision(const float *x, float *out);

#ifdef __cplusplus
}
#endif

#endif /* {{.Guard}} */
`

const codeText = `/*
{{- range .Prov}}
 * {{.}}
{{- end}}
 *
 * C99, freestanding: no allocation, no library call, the model in const
 * arrays. The arithmetic is IEEE double, the library's float64, in the
 * library's order (package core/cgen's documentation).
 */
#include <stddef.h>
#include <stdint.h>
#include "{{.N}}.h"

typedef char {{.N}}_double_is_binary64[sizeof(double) == 8 ? 1 : -1];
{{range .Arrays}}
{{- if .Doc}}
/* {{.Doc}} */
{{- end}}
{{if ne .Name (print $.N "_labels")}}static {{end}}const {{.Type}} {{.Name}}[{{.Len}}] = {
	{{.Body}}
};
{{end}}
{{- if .NeedExp}}
/*
 * exp(x) = 2^k·exp(r), k the integer nearest x/ln 2, r = x − k·ln 2 with
 * ln 2 in two parts (Cody and Waite) so that r is exact to 2^-60, |r| ≤ 0.35;
 * exp(r) by its Taylor series to r^14/14!, below 2^-56 relative there.
 */
static double {{.N}}_exp(double x)
{
	static const double ln2hi = 6.93147180369123816490e-01, ln2lo = 1.90821492927058770002e-10;
	union { double d; uint64_t u; } s;
	double r, p;
	int k;
	if (x != x)
		return x;
	if (x > 709.782712893384) {
		s.u = (uint64_t)0x7ff << 52;
		return s.d;
	}
	if (x < -745.2)
		return 0.0;
	k = (int)(x * 1.4426950408889634 + (x < 0 ? -0.5 : 0.5));
	r = (x - k * ln2hi) - k * ln2lo;
	p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720
		+ r * (1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800
		+ r * (1.0 / 39916800 + r * (1.0 / 479001600 + r * (1.0 / 6227020800.0 + r * (1.0 / 87178291200.0))))))))))))));
	if (k < -1000) { /* a subnormal result: scale in two steps */
		s.u = (uint64_t)(1023 - 100) << 52;
		p *= s.d;
		k += 100;
	} else if (k > 1023) {
		p *= 2.0;
		k--;
	}
	s.u = (uint64_t)(k + 1023) << 52;
	return p * s.d;
}
{{end}}
{{- if .NeedTanh}}
/*
 * tanh(y) = e/(e + 2) with e = exp(2|y|) − 1, from the Taylor series of
 * exp(z) − 1 (to z^19/19!) below |z| = 1, where exp − 1 would cancel.
 */
static double {{.N}}_tanh(double y)
{
	const double a = y < 0 ? -y : y, z = 2 * a;
	double e, t;
	int n;
	if (a > 22)
		t = 1.0;
	else if (z < 1) {
		e = 1.0;
		for (n = 19; n > 1; n--)
			e = 1.0 + z / n * e;
		e *= z;
		t = e / (e + 2);
	} else {
		e = {{.N}}_exp(z) - 1;
		t = e / (e + 2);
	}
	return y < 0 ? -t : t;
}
{{end}}
{{- if .NeedRound}}
/* The nearest integer to v, halves away from zero (Go's math.Round); |v| ≤ 2^24. */
static int32_t {{.N}}_round(double v)
{
	int32_t t = (int32_t)v;
	const double f = v - (double)t;
	if (f >= 0.5)
		t++;
	else if (f <= -0.5)
		t--;
	return t;
}
{{end}}
{{- if .Kernel}}{{if not .Quant}}
/* Σ x_j·y_j in double, with core/simd Dot64x4's four accumulators. */
static double {{.N}}_dot(const float *x, const float *y)
{
	double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
	size_t j = 0;
	for (; j + 4 <= {{.NF}}; j += 4) {
		s0 += (double)x[j] * (double)y[j];
		s1 += (double)x[j + 1] * (double)y[j + 1];
		s2 += (double)x[j + 2] * (double)y[j + 2];
		s3 += (double)x[j + 3] * (double)y[j + 3];
	}
{{- if .DotTail}}
	for (; j < {{.NF}}; j++)
		s0 += (double)x[j] * (double)y[j];
{{- end}}
	return (s0 + s1) + (s2 + s3);
}
{{end}}
/* The kernel from u'v ({{.KernelType}}), as core's Kernel.FromDot. */
{{- if eq .KernelType "rbf"}}
static double {{.N}}_kernel(double uu, double vv, double uv)
{
	double d = uu + vv - 2 * uv;
	if (d < 0)
		d = 0;
	return {{.N}}_exp(-{{.Gamma}} * d);
}
{{- else}}
static double {{.N}}_kernel(double uv)
{
{{- if eq .KernelType "poly"}}
	double b = {{.Gamma}} * uv + {{.Coef0}}, r = 1.0;
	int n = {{.Degree}};
	for (; n > 0; n >>= 1) {
		if (n & 1)
			r *= b;
		b *= b;
	}
	return r;
{{- else if eq .KernelType "sigmoid"}}
	return {{.N}}_tanh({{.Gamma}} * uv + {{.Coef0}});
{{- else}}
	return uv;
{{- end}}
}
{{- end}}
{{if .Quant}}
/* Coefficient i of sv_coef (row-major, rows of {{.L}}): σ_k·p_ki, exact in double. */
#define {{.N}}_COEF(i) ((double){{.N}}_cs[(i) / {{.L}}] * (double){{.N}}_p[i])
{{else}}
#define {{.N}}_COEF(i) {{.N}}_coef[i]
{{end}}
{{- if eq .Task "class"}}
/* The index of the decision value of classes a < b, in pair order (0,1), (0,2), …, (1,2), … */
#define {{.N}}_PAIR(a, b) ((a) * (2 * {{.NR}} - (a) - 1) / 2 + (b) - (a) - 1)
{{- if .Slots}}
/* The sum a pair takes while it is begun and not done (its own index when all are). */
#define {{.N}}_SLOT(p) {{.N}}_slot[p]
{{- else}}
#define {{.N}}_SLOT(p) (p)
{{- end}}
{{end}}
{{- end}}
{{- if .Votes}}
/*
 * The prediction of x, LIBSVM's one-vs-one vote with ties to the first
 * class, and its decision values in out unless out is NULL. One pass over
 * the support vectors adds each one's kernel value to the pairs of its
 * class, each pair's sum in the library's order (its first class's support
 * vectors, then its second's, then − rho); a pair votes once its second
 * class is done, so only the pairs begun and not done take a sum: at most
 * {{.Live}} of the {{.ND}}{{if .Slots}}, in the slots {{.N}}_slot assigns{{end}}.
 */
{{- else}}
/* The prediction of x, and its decision values in out unless out is NULL. */
{{- end}}
static double {{.N}}_decide(const float *x, float *out)
{
{{- if .Scaled}}
	float xs[{{.NF}}];
{{- end}}
{{- if and .Kernel .Quant}}
	int32_t xq[{{.NF}}];
	double xx = 0.0, c0 = 0.0, mx = 0.0, t = 0.0;
{{- end}}
{{- if and .Kernel (not .Quant) (eq .KernelType "rbf")}}
	double xx;
{{- end}}
{{- if .Votes}}
	double sums[{{.Live}}];
	{{.VoteType}} votes[{{.NR}}];
	int c, o, best = 0;
{{- else}}
	double dec[{{.ND}}];
{{- end}}
{{- if .Linear}}
	int k;
{{- end}}
	size_t i{{if or .Linear .Quant .Scaled}}, j{{end}};
{{- if .Scaled}}
	for (j = 0; j < {{.NF}}; j++)
		xs[j] = (float)({{.N}}_scale_o[j] + {{.N}}_scale_f[j] * (double)x[j]);
	x = xs;
{{- end}}
{{- if not .Votes}}
	for (i = 0; i < {{.ND}}; i++)
		dec[i] = 0.0;
{{- end}}
{{- if .Linear}}
	for (j = 0; j < {{.NF}}; j++) {
		const double v = (double)x[j];
		if (v != 0.0)
			for (k = 0; k < {{.NrW}}; k++)
				dec[k] += v * (double){{.N}}_w[j * {{.NrW}} + k];
	}
	for (k = 0; k < {{.NrW}}; k++)
		dec[k] = {{if .Quant}}(double){{.N}}_s[k] * {{end}}dec[k]{{if .Bias}} + {{.Bias}} * (double){{.N}}_bw[k]{{end}};
{{- else}}
{{- if .Quant}}
	/* The row's integer form, as the library's: x_j·a_j ≈ t·xq_j, t = max|x_j·a_j| / 2^24. */
	for (j = 0; j < {{.NF}}; j++) {
		const double f = (double)x[j];
		double a = f * (double){{.N}}_fa[j];
		xx += f * f;
		if (a < 0)
			a = -a;
		if (a > mx)
			mx = a;
	}
{{- if .Dense}}
	for (j = 0; j < {{.NF}}; j++)
		c0 += (double)x[j] * {{.N}}_fo[j];
{{- end}}
	if (mx > 0 && mx - mx == 0) {
		const double inv = 16777216.0 / mx;
		t = mx / 16777216.0;
		for (j = 0; j < {{.NF}}; j++)
			xq[j] = x[j] == 0 ? 0 : {{.N}}_round((double)x[j] * (double){{.N}}_fa[j] * inv);
	} else
		for (j = 0; j < {{.NF}}; j++)
			xq[j] = 0;
{{- else if eq .KernelType "rbf"}}
	xx = {{.N}}_dot(x, x);
{{- end}}
{{- if .Votes}}
	for (c = 0; c < {{.NR}}; c++)
		votes[c] = 0;
	i = 0;
	for (c = 0; c < {{.NR}}; c++) {
		for (o = c + 1; o < {{.NR}}; o++)
			sums[{{.N}}_SLOT({{.N}}_PAIR(c, o))] = 0.0;
		for (; i < {{.N}}_start[c + 1]; i++) {
{{- else}}
	for (i = 0; i < {{.L}}; i++) {
{{- end}}
{{- if .Quant}}
			int64_t acc = 0;
			double kv{{if eq .KernelType "rbf"}}, ss = 0.0{{end}};
			const {{.CodeType}} *q = {{.N}}_q + i * {{.NF}};
{{- if eq .KernelType "rbf"}}
			/* and ‖sv'_i‖² from the codes, as the library sums it (in feature order), instead of 8 bytes of flash a vector */
			for (j = 0; j < {{.NF}}; j++) {
				const double v = {{if .Dense}}{{.N}}_fo[j] + {{end}}(double){{.N}}_fa[j] * (double)q[j];
				acc += (int64_t)xq[j] * q[j];
				ss += v * v;
			}
			kv = {{.N}}_kernel(xx, ss, c0 + t * (double)acc);
{{- else}}
			for (j = 0; j < {{.NF}}; j++)
				acc += (int64_t)xq[j] * q[j];
			kv = {{.N}}_kernel(c0 + t * (double)acc);
{{- end}}
{{- else}}
			const double kv = {{.N}}_kernel({{if eq .KernelType "rbf"}}xx, {{.N}}_ss[i], {{end}}{{.N}}_dot(x, {{.N}}_sv + i * {{.NF}}));
{{- end}}
{{- if .Votes}}
			/* LIBSVM's sv_coef: row o of a class-c vector is its pair with o (o < c), or with o + 1 */
			for (o = 0; o < c; o++)
				sums[{{.N}}_SLOT({{.N}}_PAIR(o, c))] += {{template "coef" .}}((size_t)o * {{.L}} + i) * kv;
			for (o = c + 1; o < {{.NR}}; o++)
				sums[{{.N}}_SLOT({{.N}}_PAIR(c, o))] += {{template "coef" .}}((size_t)(o - 1) * {{.L}} + i) * kv;
		}
		/* The pairs (o, c) are done: each votes for o when positive, else for c. */
		for (o = 0; o < c; o++) {
			const double d = sums[{{.N}}_SLOT({{.N}}_PAIR(o, c))] - {{.N}}_rho[{{.N}}_PAIR(o, c)];
			if (out != NULL)
				out[{{.N}}_PAIR(o, c)] = (float)d;
			votes[d > 0 ? o : c]++;
		}
	}
	for (c = 1; c < {{.NR}}; c++)
		if (votes[c] > votes[best])
			best = c;
	return (double){{.N}}_labels[best];
}
{{- else}}
			dec[0] += {{template "coef" .}}(i) * kv;
	}
	dec[0] -= {{.N}}_rho[0];
{{- end}}
{{- end}}
{{- if not .Votes}}
	if (out != NULL)
		for (i = 0; i < {{.ND}}; i++)
			out[i] = (float)dec[i];
{{- if eq .Task "reg"}}
	return dec[0];
{{- else if eq .Task "one"}}
	return dec[0] > 0 ? 1.0 : -1.0;
{{- else if eq .NrW 1}}
	/* The first label when positive. */
	return (double){{.N}}_labels[dec[0] > 0 ? 0 : 1];
{{- else}}
	/* LIBLINEAR's arg-max, ties to the first. */
	for (k = 1, i = 0; k < {{.NrW}}; k++)
		if (dec[k] > dec[i])
			i = (size_t)k;
	return (double){{.N}}_labels[i];
{{- end}}
}
{{- end}}
{{- define "coef"}}{{.N}}_COEF{{end}}

double {{.N}}_predict(const float *x)
{
	return {{.N}}_decide(x, NULL);
}

double {{.N}}_decision(const float *x, float *out)
{
	return {{.N}}_decide(x, out);
}
`
