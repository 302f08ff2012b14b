#!/usr/bin/env python3
"""A C-free client of svmgo serve: the Open Inference Protocol's REST
endpoints with Python's standard library alone.

    python3 client.py [URL [MODEL]]      (default http://127.0.0.1:8000 heart)

Waits for the server to be ready, prints the model's metadata, then
predicts two heart_scale rows, asking for labels, decision values and (when
the model has them) probabilities; predicts them again as binary tensor
data (the rows as little-endian FP32 after the JSON, the labels back as
INT64 the same way) and checks the labels agree; and shows a refused
request's error.
"""
import json
import struct
import sys
import time
import urllib.error
import urllib.request

URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
MODEL = sys.argv[2] if len(sys.argv) > 2 else "heart"


def call(method, path, body=None):
    """Returns (status, decoded JSON answer)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as e:  # 4xx: {"error": "..."}
        return e.code, json.load(e)


for _ in range(100):
    try:
        if call("GET", "/v2/health/ready")[0] == 200:
            break
    except urllib.error.URLError:
        pass
    time.sleep(0.1)
else:
    sys.exit("server not ready")

_, meta = call("GET", f"/v2/models/{MODEL}")
print("model", meta["name"], "versions", meta["versions"], "platform", meta["platform"])
print("input", meta["inputs"][0], "outputs", [o["name"] for o in meta["outputs"]])

rows = [[0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1, -0.225806, 0, 1, -1],
        [0.583333, -1, 0.333333, -0.603774, 1, -1, 1, 0.358779, -1, -0.483871, 0, -1, 1]]
outputs = [{"name": o["name"]} for o in meta["outputs"]]  # label, decision[, probability]
status, ans = call("POST", f"/v2/models/{MODEL}/infer", {
    "id": "example-1",
    "inputs": [{"name": "input", "shape": [len(rows), len(rows[0])], "datatype": "FP32", "data": rows}],
    "outputs": outputs,
})
print("status", status, "version", ans.get("model_version"))
for out in ans.get("outputs", []):
    print(f"  {out['name']:12} {out['datatype']:5} shape {out['shape']}: {out['data']}")

# The same rows as binary tensor data: JSON header, then the raw rows.
labels = next(o["data"] for o in ans["outputs"] if o["name"] == "label")
raw = struct.pack(f"<{len(rows) * len(rows[0])}f", *(x for row in rows for x in row))
header = json.dumps({
    "inputs": [{"name": "input", "shape": [len(rows), len(rows[0])], "datatype": "FP32",
                "parameters": {"binary_data_size": len(raw)}}],
    "parameters": {"binary_data_output": True},
}).encode()
req = urllib.request.Request(URL + f"/v2/models/{MODEL}/infer", data=header + raw, method="POST",
                             headers={"Inference-Header-Content-Length": str(len(header)),
                                      "Content-Type": "application/octet-stream"})
with urllib.request.urlopen(req, timeout=10) as resp:
    n = int(resp.headers["Inference-Header-Content-Length"])
    body = resp.read()
head = json.loads(body[:n])
size = head["outputs"][0]["parameters"]["binary_data_size"]
fmt = "<%dq" % (size // 8) if head["outputs"][0]["datatype"] == "INT64" else "<%dd" % (size // 8)
binary_labels = list(struct.unpack(fmt, body[n:n + size]))
print("binary tensor data: labels", binary_labels)
if binary_labels != labels:
    sys.exit(f"binary labels {binary_labels} differ from the JSON ones {labels}")

status, ans = call("POST", f"/v2/models/{MODEL}/infer",
                   {"inputs": [{"name": "input", "shape": [1, 3], "datatype": "FP32", "data": [1, 2, 3]}]})
print("a row of the wrong width:", status, ans["error"])
