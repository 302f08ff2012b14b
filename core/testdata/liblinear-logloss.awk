# liblinear-logloss.awk: the mean log-loss −log p(true class) of liblinear-predict -b 1's output
# (first file) on a LIBSVM data file's labels (second file); by liblinear-ref.sh.
# usage: awk -f liblinear-logloss.awk predictions data
FNR == NR { if ($1 == "labels") { for (k = 2; k <= NF; k++) lab[k-1] = $k + 0; next } n++; for (k = 2; k <= NF; k++) p[n, lab[k-1]] = $k; next }
{ m++; v = p[m, $1 + 0]; if (v < 1e-15) v = 1e-15; s -= log(v) }
END { printf "%.6g\n", s / m }
