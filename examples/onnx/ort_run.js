// ort_run.js runs an ONNX model with ONNX Runtime (onnxruntime-node) on a
// dense float32 matrix and writes its outputs as JSON: the reference the
// ONNX tests (core/onnx ort_test.go) and the benchmark (make bench-onnx)
// compare svmgo against.
//
//   node ort_run.js MODEL.onnx ROWS.f32 ROWS COLS THREADS OUT.json [REPEAT]
//   node ort_run.js MODEL.onnx DATA.libsvm 0 COLS THREADS OUT.json [REPEAT]
//
// ROWS.f32 holds ROWS×COLS little-endian float32, row-major; a file not
// ending in .f32 is read as LIBSVM text (labels dropped, index i is column
// i−1, indices past COLS refused), its rows counted. THREADS sets
// the intra-op thread count (inter-op is 1). With REPEAT > 0 the whole
// batch is run REPEAT more times after a warm-up and the median wall
// and CPU time (the process's, every thread) of one run are reported
// (ms); the outputs are those of the first
// run. NODE_PATH must reach onnxruntime-node (the Makefile installs
// version 1.17.0 under .cache/ort).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

// readLibsvm returns the rows of a LIBSVM text file as a dense row-major
// Float32Array of cols columns, and the number of rows.
function readLibsvm(path, cols) {
  const lines = fs.readFileSync(path, 'latin1').split('\n').filter((l) => l.trim() !== '');
  const x = new Float32Array(lines.length * cols);
  lines.forEach((line, r) => {
    const f = line.trim().split(/\s+/);
    for (let k = 1; k < f.length; k++) {
      const c = f[k].indexOf(':');
      const j = Number(f[k].slice(0, c)) - 1;
      if (!(j >= 0 && j < cols)) throw new Error(`${path}:${r + 1}: index ${j + 1} outside 1..${cols}`);
      x[r * cols + j] = Number(f[k].slice(c + 1));
    }
  });
  return [x, lines.length];
}

async function main() {
  const [model, input, rowsS, colsS, threadsS, out, repeatS] = process.argv.slice(2);
  const rows = Number(rowsS), cols = Number(colsS), threads = Number(threadsS);
  const repeat = Number(repeatS || 0);
  let x, n = rows;
  if (input.endsWith('.f32')) {
    const buf = fs.readFileSync(input);
    if (buf.length !== 4 * rows * cols) {
      throw new Error(`${input}: ${buf.length} bytes, want ${4 * rows * cols}`);
    }
    x = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  } else {
    [x, n] = readLibsvm(input, cols);
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', x, [n, cols])};
  const result = await session.run(feeds);
  const times = [], cpu = [];
  for (let i = 0; i < repeat; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e3);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const outputs = {};
  for (const name of session.outputNames) {
    const t = result[name];
    outputs[name] = {type: t.type, dims: t.dims, data: Array.from(t.data, Number)};
  }
  fs.writeFileSync(out, JSON.stringify({outputs, median_ms: times.length ? times[times.length >> 1] : null,
    median_cpu_ms: cpu.length ? cpu[cpu.length >> 1] : null}));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
