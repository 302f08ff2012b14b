"""The client of make demo: holds one watched model handle on a directory of
published versions (svmgo_model_watch) and, each time the version it serves
changes, prints that version and its accuracy on a LIBSVM test file.

    python3 client.py MODELS_DIR TEST_FILE

It prints "client: watching MODELS_DIR" once the handle is open, then one
line per version served, and on SIGTERM or SIGINT a last line listing the
versions it served; then it exits 0. Standard library only; the svmgo package is
taken from ../python.
"""

import array
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))

import svmgo  # noqa: E402  (after the path is set)

# How often the version is looked at: the swap itself happens in the
# library's watcher whatever this is; this only bounds how late it is shown.
POLL_SECONDS = 0.005


def read_libsvm(path):
    """The rows of a LIBSVM text file as labels and a CSR triple with 0-based indices."""
    labels = []
    indptr, indices, values = array.array("q", [0]), array.array("i"), array.array("d")
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            labels.append(float(fields[0]))
            for field in fields[1:]:
                i, v = field.split(":")
                indices.append(int(i) - 1)
                values.append(float(v))
            indptr.append(len(indices))
    return labels, (indptr, indices, values)


def served_version(model):
    """The version model serves, 0 while none has loaded."""
    try:
        return model.version
    except svmgo.Error as e:
        if e.code == svmgo.Status.E_NO_MODEL:
            return 0
        raise


def main(argv):
    if len(argv) != 3:
        print("usage: client.py MODELS_DIR TEST_FILE", file=sys.stderr)
        return 2
    models, test = argv[1], argv[2]
    labels, rows = read_libsvm(test)
    stop = []
    # Python's own handlers, installed after the library is loaded, so a
    # SIGTERM ends the loop below instead of the process.
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))

    served = []
    with svmgo.Model.watch(models) as model:
        print(f"client: watching {models}", flush=True)
        while not stop:
            v = served_version(model)
            if v == 0 or (served and v == served[-1]):
                time.sleep(POLL_SECONDS)
                continue
            pred = model.predict(rows)
            if served_version(model) != v:
                continue  # swapped during the call: measure the newer one
            if served and v < served[-1]:
                print(f"client: version went back from {served[-1]} to {v}", file=sys.stderr, flush=True)
                return 1
            # The file's modification time is when the publisher wrote it,
            # just before it got its final name: the delay is an upper bound.
            try:
                age = f", {1000 * (time.time() - os.stat(os.path.join(models, f'model-{v}.svmgo')).st_mtime):.0f} ms after publication"
            except OSError:
                age = ""  # already removed by the daemon's retention
            correct = sum(p == y for p, y in zip(pred, labels))
            print(
                f"client: now serving version {v}: accuracy {100 * correct / len(labels):.4f}% "
                f"({correct}/{len(labels)}) on {os.path.basename(test)}{age}",
                flush=True,
            )
            served.append(v)
    print(f"client: stopped; versions served: {' '.join(map(str, served)) or 'none'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
