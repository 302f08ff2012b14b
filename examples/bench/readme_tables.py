"""Splice the benchmark scripts' Markdown tables into examples/bench/README.md.

Each examples/bench/NAME.sh writes its table and notes to
examples/bench/out/NAME.md. examples/bench/README.md holds the same text between the lines
``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->``; this script replaces
what is between them with the script's output, so that the README's figures
are what ``make bench`` printed and never typed by hand.

A run may cover only some of a script's cases (``BENCH_CASES``): the cases
it did not run keep their rows and their notes from the README, with the
date and load of the run that measured them. A case is named by its row's
first two cells, ``| data | options |``; a note of a case is a line
``- data options: ...`` with the same words. The output's keyed lines come
in runs (the table rows, then each list of per-case notes); a kept case's
lines go at the end of the run of the same rank. A case's details are a
section headed ``#### data options`` (the same words), running to the next
such heading or the block's end; sections come last in a block, and a kept
case's section goes after the run's. The rows of a per-batch table (its
header's first cell is ``batch``) belong to their section and are never
keyed, so one case's batches never join another case's table.

    python3 examples/bench/readme_tables.py examples/bench/README.md examples/bench/out

Standard library only. Exits 1, changing nothing, when a block's markers are
missing or unbalanced.
"""

import os
import re
import sys

_ROW = re.compile(r"^\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|")
_NOTE = re.compile(r"^- (.+?): ")
_SECTION = re.compile(r"^#### (.+?)\s*$")


def _row_keys(lines):
    """Each line's case key when it is a keyed table row, else None: the
    header (first cell "data"), the |---| separator and the rows of a
    per-batch table (header's first cell "batch") are not keyed."""
    keys, batch_table, prev_row = [], False, False
    for line in lines:
        m = _ROW.match(line)
        key = None
        if m and not prev_row:  # a table's header
            batch_table = m.group(1) == "batch"
        elif m and not batch_table and not set(m.group(1)) <= set("-: ") and m.group(1) != "data":
            key = m.group(1) + " " + m.group(2)
        keys.append(key)
        prev_row = m is not None
    return keys


def _runs(lines, row_keys):
    """The keyed lines of a block as a list of runs of (key, line): maximal
    runs of table rows or of case notes (a note's key must name a row of the
    block; other list items are not keyed)."""
    cases = {k for k in row_keys if k}
    runs, current, kind = [], [], None
    for line, k in zip(lines, row_keys):
        kd = "row"
        if k is None:
            m = _NOTE.match(line)
            k, kd = (m.group(1), "note") if m and m.group(1) in cases else (None, None)
        if k is None or kd != kind:
            if current:
                runs.append(current)
            current, kind = [], kd
        if k is not None:
            current.append((k, line))
    if current:
        runs.append(current)
    return runs


def _sections(lines):
    """The block's case sections as (key, lines) in order: a heading
    "#### key" and the lines up to the next heading or the end."""
    sections = []
    for line in lines:
        m = _SECTION.match(line)
        if m:
            sections.append((m.group(1), [line]))
        elif sections:
            sections[-1][1].append(line)
    return sections


def merge(old, new):
    """The block's new text: new's lines, with each run of keyed lines
    followed by old's lines of the same run rank for the cases new lacks,
    and old's sections of those cases after new's."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    old_keys, new_row_keys = _row_keys(old_lines), _row_keys(new_lines)
    old_runs, new_runs = _runs(old_lines, old_keys), _runs(new_lines, new_row_keys)
    new_keys = {k for run in new_runs for k, _ in run}
    out, rank, i = [], 0, 0
    while i < len(new_lines):
        if rank < len(new_runs) and new_lines[i] == new_runs[rank][0][1]:
            run = new_runs[rank]
            out.extend(line for _, line in run)
            if rank < len(old_runs):
                out.extend(line for k, line in old_runs[rank] if k not in new_keys)
            i += len(run)
            rank += 1
            continue
        out.append(new_lines[i])
        i += 1
    old_cases = {k for k in old_keys if k}
    for k, lines in _sections(old_lines):
        if k in old_cases and k not in new_keys:
            if out and out[-1] != "":
                out.append("")
            out.extend(lines)
    return "\n".join(out) + "\n"


def splice(readme, name, table):
    """readme with the block of name replaced by merge(block, table)."""
    begin, end = f"<!-- bench:{name} -->\n", f"<!-- /bench:{name} -->\n"
    if readme.count(begin) != 1 or readme.count(end) != 1:
        raise ValueError(f"README needs one '{begin.strip()}' and one '{end.strip()}'")
    a = readme.index(begin) + len(begin)
    b = readme.index(end)
    if b < a:
        raise ValueError(f"'{end.strip()}' comes before '{begin.strip()}'")
    return readme[:a] + merge(readme[a:b], table) + readme[b:]


def main(argv):
    if len(argv) != 3:
        print("usage: readme_tables.py README.md OUT_DIR", file=sys.stderr)
        return 2
    readme_path, out_dir = argv[1], argv[2]
    with open(readme_path, encoding="utf-8") as f:
        text = f.read()
    names = re.findall(r"^<!-- bench:([a-z0-9_-]+) -->$", text, re.M)
    spliced = []
    for name in names:
        path = os.path.join(out_dir, name + ".md")
        if not os.path.exists(path):
            print(f"readme_tables.py: {path} missing: the README's {name} block is left as it is", file=sys.stderr)
            continue
        with open(path, encoding="utf-8") as f:
            table = f.read()
        try:
            text = splice(text, name, table)
        except ValueError as e:
            print(f"readme_tables.py: {readme_path}: {e}", file=sys.stderr)
            return 1
        spliced.append(name)
    tmp = readme_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, readme_path)
    print(f"readme_tables.py: {readme_path}: spliced {', '.join(spliced) or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
