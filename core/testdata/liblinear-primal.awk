# liblinear-primal.awk: the primal objective P(w) = ½‖w‖² + C Σ loss of a LIBLINEAR
# model (L2-loss SVC or SVR, or logistic regression; weights in its file) on a LIBSVM data file, one
# value per decision function, comma-separated; by liblinear-ref.sh.
# usage: awk -v C=1 -v P=0.1 -f liblinear-primal.awk model data
FNR == NR {
	if ($1 == "solver_type") solver = $2
	else if ($1 == "nr_class") nrclass = $2
	else if ($1 == "label") { for (k = 2; k <= NF; k++) label[k-2] = $k }
	else if ($1 == "nr_feature") nf = $2
	else if ($1 == "bias") bias = $2
	else if ($1 == "w") { inw = 1; j = 0; next }
	else if (inw) { for (k = 1; k <= NF; k++) w[j, k-1] = $k; nw = NF; j++ }
	next
}
{
	for (k = 0; k < nw; k++) s[k] = 0
	for (t = 2; t <= NF; t++) {
		split($t, a, ":"); idx = a[1] - 1
		if (idx < nf) for (k = 0; k < nw; k++) s[k] += w[idx, k] * a[2]
	}
	if (bias >= 0) for (k = 0; k < nw; k++) s[k] += w[nf, k] * bias
	for (k = 0; k < nw; k++) {
		if (solver ~ /SVR/) { d = s[k] - $1; if (d < 0) d = -d; d -= P; if (d < 0) d = 0; loss[k] += C * d * d }
		else {
			pos = (nw == 1) ? label[0] : label[k]
			y = ($1 == pos) ? 1 : -1
			if (solver ~ /_LR/) {
				t = -y * s[k]
				loss[k] += C * ((t > 0) ? t + log(1 + exp(-t)) : log(1 + exp(t)))
			} else { m = 1 - y * s[k]; if (m > 0) loss[k] += C * m * m }
		}
	}
}
END {
	rows = nf; if (bias >= 0) rows++
	for (k = 0; k < nw; k++) {
		r = 0; for (j = 0; j < rows; j++) r += w[j, k] * w[j, k]
		printf "%s%.10g", (k ? "," : ""), 0.5 * r + loss[k]
	}
	print ""
}
