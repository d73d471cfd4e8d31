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
const { toFeeds, fromResults } = require('./ort_tensors.js');

async function main() {
  const [modelPath, inputsPath, outputsPath, ortDir] = process.argv.slice(2);
  if (!ortDir) {
    console.error('usage: run_model_ort.js MODEL.onnx INPUTS.json OUTPUTS.json ORT_DIR');
    process.exit(2);
  }
  const ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
  const inputs = JSON.parse(fs.readFileSync(inputsPath, 'utf8'));
  const session = await ort.InferenceSession.create(modelPath);
  const outputs = fromResults(session, await session.run(toFeeds(ort, inputs)));
  fs.writeFileSync(outputsPath, JSON.stringify(outputs, null, 1) + '\n');
}

main().catch((error) => {
  console.error(`run_model_ort.js: ${error.message || error}`);
  process.exit(1);
});
