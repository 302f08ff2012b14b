#!/usr/bin/env bash
# curl.sh — svmgo serve's REST endpoints with curl alone.
#   bash curl.sh [URL [MODEL]]     (default http://127.0.0.1:8000 heart)
set -euo pipefail
url=${1:-http://127.0.0.1:8000}
model=${2:-heart}
show() { echo "\$ curl $*" >&2; curl -sS "$@"; echo; }

show "$url/v2/health/ready"
show "$url/v2/models/$model"
# One row of 13 features, nested; ask for the decision values too.
show -X POST "$url/v2/models/$model/infer" -H 'Content-Type: application/json' -d '{
  "inputs": [{"name": "input", "shape": [1, 13], "datatype": "FP32",
              "data": [[0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1, -0.225806, 0, 1, -1]]}],
  "parameters": {"decision": true}}'
# A specific version, two rows flat.
show -X POST "$url/v2/models/$model/versions/1/infer" -d '{
  "inputs": [{"name": "input", "shape": [2, 13], "datatype": "FP64",
              "data": [0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1, -0.225806, 0, 1, -1,
                       0.583333, -1, 0.333333, -0.603774, 1, -1, 1, 0.358779, -1, -0.483871, 0, -1, 1]}]}'
show -X POST "$url/v2/repository/index"
show "$url/metrics" -o /dev/null -w '/metrics: %{http_code}, %{size_download} bytes'
