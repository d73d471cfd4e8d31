#!/usr/bin/env node
// Runs one ONNX model with ONNX Runtime (onnxruntime-node) for import_test's ONNX Runtime comparisons.
//
// Usage: run_model_ort.js MODEL.onnx INPUTS.json OUTPUTS.json ORT_DIR
//   INPUTS.json:  {"<input name>": {"type": "float32" | "int32" | "int64" | "bool", "dims": [...], "hex": "<bytes>"}, ...}
//   OUTPUTS.json: the same for every output of the model, as ORT computed it (bytes little-endian, as the
//                 typed arrays hold them on the little-endian hosts this runs on).
// ORT_DIR holds node_modules/onnxruntime-node. Exits 1 with the error when ORT refuses the model or the run.
'use strict';

const fs = require('fs');
const path = require('path');

const ARRAYS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array };

async function main() {
  const [modelPath, inputsPath, outputsPath, ortDir] = process.argv.slice(2);
  if (!ortDir) {
    console.error('usage: run_model_ort.js MODEL.onnx INPUTS.json OUTPUTS.json ORT_DIR');
    process.exit(2);
  }
  const ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
  const inputs = JSON.parse(fs.readFileSync(inputsPath, 'utf8'));
  const feeds = {};
  for (const [name, tensor] of Object.entries(inputs)) {
    const ArrayType = ARRAYS[tensor.type];
    if (!ArrayType) throw new Error(`input ${name}: unsupported type ${tensor.type}`);
    const bytes = Buffer.from(tensor.hex, 'hex');
    const buffer = new ArrayBuffer(bytes.length);
    new Uint8Array(buffer).set(bytes);
    feeds[name] = new ort.Tensor(tensor.type, new ArrayType(buffer), tensor.dims);
  }
  const session = await ort.InferenceSession.create(modelPath);
  const results = await session.run(feeds);
  const outputs = {};
  for (const name of session.outputNames) {
    const tensor = results[name];
    const data = tensor.data;
    outputs[name] = {
      type: tensor.type,
      dims: Array.from(tensor.dims),
      hex: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex'),
    };
  }
  fs.writeFileSync(outputsPath, JSON.stringify(outputs, null, 1) + '\n');
}

main().catch((error) => {
  console.error(`run_model_ort.js: ${error.message || error}`);
  process.exit(1);
});
