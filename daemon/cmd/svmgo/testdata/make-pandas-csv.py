"""Writes pandas_heart.csv: heart_scale (core/testdata) as a pandas
DataFrame written by DataFrame.to_csv() with its defaults (a header line,
the index as column 1). Run with Debian's python3 and python3-pandas:

    python3 make-pandas-csv.py ../../../../core/testdata/heart_scale pandas_heart.csv
"""
import sys

import pandas as pd
from sklearn.datasets import load_svmlight_file

X, y = load_svmlight_file(sys.argv[1], n_features=13)
df = pd.DataFrame(X.toarray(), columns=[f"f{j}" for j in range(1, 14)])
df.insert(0, "label", y.astype(int))
df.to_csv(sys.argv[2])
