"""Tests of readme_tables.py, the splice of bench output into README.md."""

import os
import subprocess
import sys
import tempfile
import unittest

import readme_tables

HERE = os.path.dirname(os.path.abspath(__file__))

OLD = """\
| data | options | tool | train s |
|---|---|---|---:|
| digits | defaults | LIBSVM 3.24 | 0.19 |
| digits | defaults | svmgo | 0.08 |
| Fashion-MNIST 10k | `-c 10` | LIBSVM 3.24 | 79.31 |
| Fashion-MNIST 10k | `-c 10` | svmgo | 12.53 |

Ratios (old text):

- digits defaults: train 0.42
- Fashion-MNIST 10k `-c 10`: train 0.16

- Times are old notes.
- digits defaults: 2026-11-01, load 3.0
- Fashion-MNIST 10k `-c 10`: 2026-11-22, load 0.5
"""

NEW = """\
| data | options | tool | train s |
|---|---|---|---:|
| digits | defaults | LIBSVM 3.24 | 0.21 |
| digits | defaults | svmgo | 0.07 |

Ratios:

- digits defaults: train 0.33

- Times are medians of 3 alternating runs.
- digits defaults: 2026-11-23, load 0.4
"""

WANT = """\
| data | options | tool | train s |
|---|---|---|---:|
| digits | defaults | LIBSVM 3.24 | 0.21 |
| digits | defaults | svmgo | 0.07 |
| Fashion-MNIST 10k | `-c 10` | LIBSVM 3.24 | 79.31 |
| Fashion-MNIST 10k | `-c 10` | svmgo | 12.53 |

Ratios:

- digits defaults: train 0.33
- Fashion-MNIST 10k `-c 10`: train 0.16

- Times are medians of 3 alternating runs.
- digits defaults: 2026-11-23, load 0.4
- Fashion-MNIST 10k `-c 10`: 2026-11-22, load 0.5
"""


class TestMerge(unittest.TestCase):
    def test_partial_run_keeps_other_cases(self):
        self.assertEqual(readme_tables.merge(OLD, NEW), WANT)

    def test_full_run_replaces_everything(self):
        self.assertEqual(readme_tables.merge(WANT, OLD), OLD)
        self.assertEqual(readme_tables.merge(OLD, OLD), OLD)

    def test_new_case_is_added(self):
        old = "| data | options | x |\n|---|---|---|\n| a | o | 1 |\n"
        new = "| data | options | x |\n|---|---|---|\n| b | o | 2 |\n"
        self.assertEqual(readme_tables.merge(old, new), "| data | options | x |\n|---|---|---|\n| b | o | 2 |\n| a | o | 1 |\n")

    def test_batch_tables_stay_in_their_sections(self):
        # stream.sh's layout: the totals, then one section of batches a case.
        def block(cases):
            rows = "".join(f"| {d} | `{o}` in process | {x} |\n" for d, o, x, _ in cases)
            secs = "".join(f"\n#### {d} `{o}` in process\n\n| batch | warm/cold |\n|---:|---:|\n"
                           + "".join(f"| {b} | {v} |\n" for b, v in enumerate(vs, 1)) for d, o, _, vs in cases)
            return "| data | options, path | x |\n|---|---|---:|\n" + rows + secs
        shuttle, digits = ("shuttle", "-c 100", "0.2", ["0.3", "0.1"]), ("digits", "", "0.4", ["0.5"])
        shuttle2 = ("shuttle", "-c 100", "0.1", ["0.2", "0.05"])
        # digits not run: its row and section are kept, after shuttle's;
        # no batch row of the old shuttle table joins the new one.
        self.assertEqual(readme_tables.merge(block([shuttle, digits]), block([shuttle2])),
                         block([shuttle2, digits]))
        # A full run replaces every section.
        self.assertEqual(readme_tables.merge(block([shuttle, digits]), block([shuttle2, digits])),
                         block([shuttle2, digits]))
        # A section of no case (its heading names no row) is not kept.
        old = block([shuttle]) + "\n#### gone `x` in process\n\n| batch | warm/cold |\n"
        self.assertEqual(readme_tables.merge(old, block([shuttle2])), block([shuttle2]))

    def test_splice_only_between_markers(self):
        readme = "intro | data | options |\n<!-- bench:kernel -->\n" + OLD + "<!-- /bench:kernel -->\nafter\n"
        got = readme_tables.splice(readme, "kernel", NEW)
        self.assertEqual(got, "intro | data | options |\n<!-- bench:kernel -->\n" + WANT + "<!-- /bench:kernel -->\nafter\n")
        for bad in ("<!-- bench:kernel -->\nx\n", "<!-- /bench:kernel -->\n<!-- bench:kernel -->\n"):
            with self.assertRaises(ValueError):
                readme_tables.splice(bad, "kernel", NEW)

    def test_command(self):
        with tempfile.TemporaryDirectory() as d:
            readme = os.path.join(d, "README.md")
            out = os.path.join(d, "out")
            os.mkdir(out)
            with open(readme, "w") as f:
                f.write("# x\n<!-- bench:kernel -->\n" + OLD + "<!-- /bench:kernel -->\n"
                        "<!-- bench:linear -->\nkept\n<!-- /bench:linear -->\n")
            with open(os.path.join(out, "kernel.md"), "w") as f:
                f.write(NEW)
            r = subprocess.run([sys.executable, os.path.join(HERE, "readme_tables.py"), readme, out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("linear.md missing", r.stderr)
            with open(readme) as f:
                self.assertEqual(f.read(), "# x\n<!-- bench:kernel -->\n" + WANT + "<!-- /bench:kernel -->\n"
                                 "<!-- bench:linear -->\nkept\n<!-- /bench:linear -->\n")


if __name__ == "__main__":
    unittest.main()
