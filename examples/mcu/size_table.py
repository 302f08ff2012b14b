#!/usr/bin/env python3
"""Writes examples/mcu/README.md's size table from make test-mcu-full's
bin/mcu-sizes.tsv (package core/cgen's test log: a line per model and
Cortex-M).

    size_table.py SIZES_TSV README

The block between "<!-- mcu:sizes -->" and "<!-- /mcu:sizes -->" in README
is replaced: a row per float model of the Cortex-M4F with its int8 twin,
the goals of issue 29 checked per row, and how far the Cortex-M3's figures
lie from the M4F's. Nothing else of README changes.
"""
import sys

BEGIN, END = "<!-- mcu:sizes -->", "<!-- /mcu:sizes -->"
FIELDS = ("name", "set", "what", "bits", "target", "rows", "flash", "arrays", "code", "ram", "vector")
RAM_GOAL, CODE_GOAL, INT8_GOAL = 256, 2048, 0.30


def read(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != len(FIELDS):
                sys.exit(f"{path}:{n}: {len(parts)} fields, want {len(FIELDS)}")
            r = dict(zip(FIELDS, parts))
            for k in FIELDS[3:]:
                if k != "target":
                    r[k] = int(r[k])
            rows.append(r)
    return rows


def num(n):
    return f"{n:,}"


def table(rows):
    by = {(r["name"], r["target"]): r for r in rows}
    m4 = [r for r in rows if r["target"] == "cortex-m4f" and r["bits"] == 0]
    if not m4:
        sys.exit("no float model measured on the cortex-m4f")
    out = [
        "| set | model | float flash | int8 flash | int8/float | code beyond arrays (float / int8) "
        "| RAM float / int8 | RAM goal (256 + one feature vector) | qemu rows (M4F / M3) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in m4:
        q = by.get((f["name"] + "_q8", "cortex-m4f"))
        goal = RAM_GOAL + f["vector"]
        rams = [f["ram"]] + ([q["ram"]] if q else [])
        met = "met" if max(rams) <= goal else "over"
        m3 = by.get((f["name"], "cortex-m3"))
        cells = [
            f["set"], f["what"], num(f["flash"]),
            num(q["flash"]) if q else "–",
            f"{100 * q['flash'] / f['flash']:.0f}%" if q else "–",
            f"{num(f['code'])} / {num(q['code'])}" if q else num(f["code"]),
            f"{num(f['ram'])} / {num(q['ram'])}" if q else num(f["ram"]),
            f"{num(goal)}: {met}",
            f"{num(f['rows'])} / {num(m3['rows'])}" if m3 else num(f["rows"]),
        ]
        out.append("| " + " | ".join(cells) + " |")
    # The Cortex-M3's distance from the M4F, over every model both ran.
    dflash = dram = 0
    for r in rows:
        if r["target"] == "cortex-m3" and (r["name"], "cortex-m4f") in by:
            o = by[(r["name"], "cortex-m4f")]
            dflash = max(dflash, abs(r["flash"] - o["flash"]))
            dram = max(dram, abs(r["ram"] - o["ram"]))
    code = [r["code"] for r in rows]
    ratios = [by[(f["name"] + "_q8", "cortex-m4f")]["flash"] / f["flash"]
              for f in m4 if (f["name"] + "_q8", "cortex-m4f") in by]
    out += [
        "",
        f"Cortex-M3: flash within {dflash} B and RAM within {dram} B of these "
        f"(bin/mcu-sizes.tsv has both). Code beyond the arrays: {num(min(code))}–{num(max(code))} B "
        f"(goal ≤ {num(CODE_GOAL)}: {'met' if max(code) <= CODE_GOAL else 'over'}); int8 flash "
        f"{100 * min(ratios):.0f}–{100 * max(ratios):.0f}% of float "
        f"(goal ≤ {100 * INT8_GOAL:.0f}%: met by {sum(x <= INT8_GOAL for x in ratios)} of {len(ratios)}).",
    ]
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = read(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        sys.exit(f"{sys.argv[2]}: one {BEGIN} … {END} block expected")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + table(rows) + "\n" + END + tail)


if __name__ == "__main__":
    main()
