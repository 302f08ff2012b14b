"""OIP gRPC client for TestServeConformance: stubs generated from the vendored
grpc_predict_v2.proto (PYTHONPATH), Debian's python3-grpcio.

usage: oip_grpc_client.py ADDR JOB.json OUT.json

JOB holds {"requests": [{"model", "version", "rows", "cols", "data" (flat),
"raw" (bool), "outputs": [...]}], "bad": [{"name", "model", "version",
"datatype", "shape", "data", "raw_bytes" (int, a raw input of that many
bytes), "outputs", "want" (a grpc.StatusCode name)}]}. OUT gets the answers
({"version", "outputs": {name: {"datatype", "shape", "data"}}}), the bad
requests' codes, and the health, liveness, readiness and metadata answers.
"""
import json
import struct
import sys

import grpc

import grpc_predict_v2_pb2 as pb
import grpc_predict_v2_pb2_grpc as pbg


def health(channel):
    """The standard health service's status for the whole server, by hand:
    Debian has no python3-grpcio-health-checking, so the two messages are
    encoded here (HealthCheckRequest{service=""} is empty; the response's
    field 1 is the status enum)."""
    call = channel.unary_unary("/grpc.health.v1.Health/Check",
                               request_serializer=lambda _: b"",
                               response_deserializer=lambda b: b)
    resp = call(None, timeout=10)
    return resp[1] if len(resp) >= 2 and resp[0] == 0x08 else 0


def tensor_data(t, raw):
    if raw is not None:
        fmt = "<%dq" if t.datatype == "INT64" else "<%dd"
        return list(struct.unpack(fmt % (len(raw) // 8), raw))
    if t.datatype == "INT64":
        return list(t.contents.int64_contents)
    return list(t.contents.fp64_contents)


def infer_request(r):
    inp = pb.ModelInferRequest.InferInputTensor(name="input", datatype=r.get("datatype", "FP32"),
                                                shape=r["shape"] if "shape" in r else [r["rows"], r["cols"]])
    req = pb.ModelInferRequest(model_name=r["model"], model_version=r.get("version", ""), id=r.get("id", ""))
    if "raw_bytes" in r:
        req.raw_input_contents.append(b"\0" * r["raw_bytes"])
    elif r.get("raw"):
        req.raw_input_contents.append(struct.pack("<%df" % len(r["data"]), *r["data"]))
    elif inp.datatype == "FP64":
        inp.contents.fp64_contents.extend(r["data"])
    elif inp.datatype in ("INT8", "INT16", "INT32"):
        inp.contents.int_contents.extend(int(v) for v in r["data"])
    else:
        inp.contents.fp32_contents.extend(r["data"])
    req.inputs.append(inp)
    for name in r.get("outputs", []):
        req.outputs.append(pb.ModelInferRequest.InferRequestedOutputTensor(name=name))
    return req


def main():
    addr, job_path, out_path = sys.argv[1:4]
    with open(job_path) as f:
        job = json.load(f)
    channel = grpc.insecure_channel(addr)
    stub = pbg.GRPCInferenceServiceStub(channel)
    out = {"answers": [], "bad": []}
    out["live"] = stub.ServerLive(pb.ServerLiveRequest(), timeout=10).live
    out["ready"] = stub.ServerReady(pb.ServerReadyRequest(), timeout=10).ready
    md = stub.ServerMetadata(pb.ServerMetadataRequest(), timeout=10)
    out["server"] = {"name": md.name, "extensions": list(md.extensions)}
    out["health"] = health(channel)
    out["models"] = {}
    for r in job["requests"]:
        m = r["model"]
        if m not in out["models"]:
            mm = stub.ModelMetadata(pb.ModelMetadataRequest(name=m), timeout=10)
            ready = stub.ModelReady(pb.ModelReadyRequest(name=m), timeout=10).ready
            out["models"][m] = {"versions": list(mm.versions), "platform": mm.platform, "ready": ready,
                                "input_shape": list(mm.inputs[0].shape), "properties": dict(mm.properties)}
        resp = stub.ModelInfer(infer_request(r), timeout=60)
        raws = list(resp.raw_output_contents)
        outputs = {}
        for i, t in enumerate(resp.outputs):
            outputs[t.name] = {"datatype": t.datatype, "shape": list(t.shape),
                               "data": tensor_data(t, raws[i] if raws else None)}
        out["answers"].append({"version": resp.model_version, "outputs": outputs})
    for b in job["bad"]:
        try:
            stub.ModelInfer(infer_request(b), timeout=10)
            code = "OK"
        except grpc.RpcError as e:
            code = e.code().name
        out["bad"].append({"name": b["name"], "code": code, "want": b["want"]})
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
