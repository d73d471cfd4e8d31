#!/usr/bin/env node
// Runs the body of an ONNX Loop with ONNX Runtime (onnxruntime-node), iteration by iteration as the Loop would,
// for import_test's checks of the indexing nodes inside it (tests/import/torch/capture.py writes the body as a
// model of its own: the body's inputs, then the outer-scope values it reads).
//
// Usage: run_loop_ort.js BODY.onnx LOOP.json ITERATIONS.json ORT_DIR
//   LOOP.json:       {"trip_count": tensor or null, "cond": tensor or null, "carried": [tensor, ...],
//                     "body_inputs": [name, ...], "body_outputs": [name, ...], "outer": {"<name>": tensor, ...}}
//                    with tensors as run_model_ort.js reads them ({"type", "dims", "hex"}); a null trip count
//                    or condition is an input the Loop leaves out
//   ITERATIONS.json: one object per iteration run: the body's own inputs in that iteration (not the outer-scope
//                    values, the same in each) and every output of the body model, by name
// ORT_DIR holds node_modules/onnxruntime-node. Exits 1 with the error when ORT refuses the model or a run.
'use strict';

const fs = require('fs');
const path = require('path');
const { toFeeds, fromResults } = require('./ort_tensors.js');

const MAX_ITERATIONS = 100000;  // a Loop with neither a trip count nor a condition that ends: stop here

// A scalar of the Loop's inputs: the trip count (int64) or the condition (bool).
function scalar(tensor) {
  const bytes = Buffer.from(tensor.hex, 'hex');
  return tensor.type === 'int64' ? bytes.readBigInt64LE(0) : BigInt(bytes[0] !== 0 ? 1 : 0);
}

async function main() {
  const [bodyPath, loopPath, iterationsPath, ortDir] = process.argv.slice(2);
  if (!ortDir) {
    console.error('usage: run_loop_ort.js BODY.onnx LOOP.json ITERATIONS.json ORT_DIR');
    process.exit(2);
  }
  const ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
  const loop = JSON.parse(fs.readFileSync(loopPath, 'utf8'));
  const session = await ort.InferenceSession.create(bodyPath);
  const tripCount = loop.trip_count ? scalar(loop.trip_count) : null;
  let condition = loop.cond ? loop.cond : { type: 'bool', dims: [], hex: '01' };
  let carried = loop.carried;
  const iterations = [];
  for (let i = 0n; tripCount === null || i < tripCount; ++i) {
    if (scalar(condition) === 0n) break;
    if (iterations.length === MAX_ITERATIONS) throw new Error(`the Loop ran ${MAX_ITERATIONS} iterations`);
    const number = Buffer.alloc(8);
    number.writeBigInt64LE(i);
    const inputs = {};
    inputs[loop.body_inputs[0]] = { type: 'int64', dims: [], hex: number.toString('hex') };
    inputs[loop.body_inputs[1]] = { type: 'bool', dims: [], hex: Buffer.from(condition.hex, 'hex').subarray(0, 1).toString('hex') };
    carried.forEach((tensor, k) => { inputs[loop.body_inputs[2 + k]] = tensor; });
    const outputs = fromResults(session, await session.run(toFeeds(ort, { ...loop.outer, ...inputs })));
    iterations.push({ ...inputs, ...outputs });
    if (loop.cond) condition = outputs[loop.body_outputs[0]];  // without a condition input, ONNX ignores it
    carried = carried.map((_, k) => outputs[loop.body_outputs[1 + k]]);
  }
  fs.writeFileSync(iterationsPath, JSON.stringify(iterations) + '\n');
}

main().catch((error) => {
  console.error(`run_loop_ort.js: ${error.message || error}`);
  process.exit(1);
});
