#!/usr/bin/env node
// Runs many ONNX models with ONNX Runtime (onnxruntime-node) in one process, for the property test of run-time
// count bounds (tests/import/count_bound_property.py), where starting node once per run would cost more than the runs.
//
// Usage: run_batch_ort.js JOBS.json RESULTS.json ORT_DIR
//   JOBS.json:    [{"model": "m.onnx", "inputs": {"<name>": {"type", "dims", "hex"}, ...}}, ...] (as run_model_ort.js)
//   RESULTS.json: one entry per job, in order: {"outputs": {"<name>": {"type", "dims", "hex"}, ...}}, or
//                 {"error": "<why ONNX Runtime refused the model or the run>"}.
'use strict';

const fs = require('fs');
const path = require('path');
const { toFeeds, fromResults } = require('./ort_tensors.js');

async function run(ort, sessions, job) {
  if (!sessions.has(job.model)) sessions.set(job.model, await ort.InferenceSession.create(job.model));
  const session = sessions.get(job.model);
  return { outputs: fromResults(session, await session.run(toFeeds(ort, job.inputs))) };
}

async function main() {
  const [jobsPath, resultsPath, ortDir] = process.argv.slice(2);
  if (!ortDir) {
    console.error('usage: run_batch_ort.js JOBS.json RESULTS.json ORT_DIR');
    process.exit(2);
  }
  const ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
  const jobs = JSON.parse(fs.readFileSync(jobsPath, 'utf8'));
  const sessions = new Map();
  const results = [];
  for (const job of jobs) {
    try {
      results.push(await run(ort, sessions, job));
    } catch (error) {
      results.push({ error: String(error.message || error) });
    }
  }
  fs.writeFileSync(resultsPath, JSON.stringify(results) + '\n');
}

main().catch((error) => {
  console.error(`run_batch_ort.js: ${error.message || error}`);
  process.exit(1);
});
