// ort_run.js runs an ONNX model with ONNX Runtime (onnxruntime-node) on a
// dense float32 matrix and writes its outputs as JSON: the reference the
// ONNX tests (core/onnx ort_test.go) and the benchmark (make bench-onnx)
// compare svmgo against.
//
//   node ort_run.js MODEL.onnx ROWS.f32 ROWS COLS THREADS OUT.json [REPEAT]
//
// ROWS.f32 holds ROWS×COLS little-endian float32, row-major. THREADS sets
// the intra-op thread count (inter-op is 1). With REPEAT > 0 the whole
// batch is run REPEAT more times after a warm-up and the median wall
// time of one run is reported (ms); the outputs are those of the first
// run. NODE_PATH must reach onnxruntime-node (the Makefile installs
// version 1.17.0 under .cache/ort).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, input, rowsS, colsS, threadsS, out, repeatS] = process.argv.slice(2);
  const rows = Number(rowsS), cols = Number(colsS), threads = Number(threadsS);
  const repeat = Number(repeatS || 0);
  const buf = fs.readFileSync(input);
  if (buf.length !== 4 * rows * cols) {
    throw new Error(`${input}: ${buf.length} bytes, want ${4 * rows * cols}`);
  }
  const x = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', x, [rows, cols])};
  const result = await session.run(feeds);
  const times = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const outputs = {};
  for (const name of session.outputNames) {
    const t = result[name];
    outputs[name] = {type: t.type, dims: t.dims, data: Array.from(t.data, Number)};
  }
  fs.writeFileSync(out, JSON.stringify({outputs, median_ms: times.length ? times[times.length >> 1] : null}));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
