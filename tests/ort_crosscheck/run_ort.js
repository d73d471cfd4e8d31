#!/usr/bin/env node
// Runs every case dumped by random_kernels_test (KERNELGEN_DUMP_CASES) through ONNX Runtime, using the
// models written by make_models.py, and compares ORT's answer with the case's expected result.
//
// Usage: run_ort.js CASES_DIR MODELS_DIR ORT_DIR [--no-widen]
//   ORT_DIR holds node_modules/onnxruntime-node, as installed by
//   npm install --ignore-scripts --no-audit --no-fund --prefix ORT_DIR onnxruntime-node@1.30.0
//
// Per case:
//   expected_status 0  -> ORT must run, give the output shape ONNX's rules give, and the expected bytes
//                         (floats: any NaN equals any NaN, every other value bit for bit, so -0 != +0).
//   expected_status -1 -> some index is out of range: ORT must refuse to run.
// A case ORT cannot run at all for a reason unrelated to the index values (its model is refused, or the
// run fails with NOT_IMPLEMENTED / an unsupported type) is skipped, and the reasons are listed at the end.
//
// ONNX allows only int64 indices for GatherND and ScatterND; kernelgen also takes int32. When ORT refuses
// such a model, the case is run through the model make_models.py wrote with int64 indices instead (the
// index values are sign-extended, so they do not change), and counted as usual; --no-widen skips those
// cases instead.
//
// ScatterND with reduction "none" and duplicate index tuples: ONNX leaves the order of the updates
// unspecified, so where several updates land on one element ORT may keep any of them. Such an element is
// accepted when ORT's value is one of those updates (the expected output keeps the last one).
//
// Known ORT behaviours where ONNX sides with the expected result are skipped with their reason, and each
// such case is printed as KNOWN (so they do not fail the test, whatever the seed):
//   - GatherND whose output is empty: ORT returns it without checking the indices; ONNX says an
//     out-of-range index is an error.
//   - ScatterND max/min on floats where ORT's output is exactly its rule's (see ortScatterMaxMin) and
//     differs only by dropping a NaN the output already held; ONNX's reference np.maximum/np.minimum
//     propagates it. A -0/+0 tie, where ONNX's reference sides with ORT, still fails, with a note.
//
// Prints each disagreement with its spec, then per-operator counts, the skip reasons, and last the line
// "ort_crosscheck: N passed, N failed, N skipped". Exits 1 if any case failed.
'use strict';

const fs = require('fs');
const path = require('path');

const OPS = ['Gather', 'GatherElements', 'GatherND', 'ScatterND'];

// The spec's dtype -> ORT tensor type, the typed array holding it, and how to compare two elements.
const ELEMENT_TYPES = {
  float32: { ort: 'float32', array: Float32Array, kind: 'float' },
  float: { ort: 'float32', array: Float32Array, kind: 'float' },
  float64: { ort: 'float64', array: Float64Array, kind: 'float' },
  int8: { ort: 'int8', array: Int8Array, kind: 'int' },
  int16: { ort: 'int16', array: Int16Array, kind: 'int' },
  int32: { ort: 'int32', array: Int32Array, kind: 'int' },
  int64: { ort: 'int64', array: BigInt64Array, kind: 'int' },
  uint8: { ort: 'uint8', array: Uint8Array, kind: 'int' },
  uint16: { ort: 'uint16', array: Uint16Array, kind: 'int' },
  uint32: { ort: 'uint32', array: Uint32Array, kind: 'int' },
  uint64: { ort: 'uint64', array: BigUint64Array, kind: 'int' },
  bool: { ort: 'bool', array: Uint8Array, kind: 'int' },  // one byte per element, 0 or 1
};

// Messages of ORT errors that say it cannot run this model at all, whatever the index values.
const UNSUPPORTED = /NOT_IMPLEMENTED|not implemented|not supported|unsupported|Could not find an implementation/i;
// Messages of ORT errors about index values (out of range, or any index into a dimension of size 0): the
// refusal a case with expected_status -1 must get. Any other error there counts as a disagreement.
const INDEX_ERROR = /out of (data )?bounds|out of range|invalid ind(ex|ice)|indices must be empty/i;

function usage() {
  console.error('usage: run_ort.js CASES_DIR MODELS_DIR ORT_DIR [--no-widen]');
  process.exit(2);
}

// --- bytes and shapes ------------------------------------------------------------------------------------

const count = (shape) => shape.reduce((n, d) => n * d, 1);

// A hex string as a typed array over its own, aligned copy of the bytes.
function typedArray(hex, ArrayType) {
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length % ArrayType.BYTES_PER_ELEMENT !== 0) {
    throw new Error(`${bytes.length} bytes are not a whole number of ${ArrayType.name} elements`);
  }
  const buffer = new ArrayBuffer(bytes.length);
  new Uint8Array(buffer).set(bytes);
  return new ArrayType(buffer);
}

const bytesOf = (array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

// Element i of a typed array, readable in a message (BigInts, bools and -0 included).
function show(array, i, dtype) {
  const v = array[i];
  if (dtype === 'bool') return v ? 'true' : 'false';
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return String(v);
}

// Two elements agree: floats when both are NaN or have the same bits; everything else byte for byte.
function sameElement(a, i, b, j, kind) {
  if (kind === 'float' && Number.isNaN(a[i]) && Number.isNaN(b[j])) return true;
  const size = a.BYTES_PER_ELEMENT;
  const x = bytesOf(a), y = bytesOf(b);
  for (let k = 0; k < size; ++k) {
    if (x[i * size + k] !== y[j * size + k]) return false;
  }
  return true;
}

// ScatterND: for each update element, the output element it lands on. Computed from ONNX's description:
// indices is a grid of k-tuples, each naming a slice data[i0, ..., ik-1, :, ...] that receives one slice
// of updates, in row-major order.
function scatterTargets(spec, indices) {
  const data = spec.data_shape;
  const k = spec.indices_shape[spec.indices_shape.length - 1];
  const sliceSize = count(data.slice(k));
  const tuples = k === 0 ? 0 : indices.length / k;
  const targets = [];
  for (let t = 0; t < tuples; ++t) {
    let offset = 0;
    for (let j = 0; j < k; ++j) {
      let v = Number(indices[t * k + j]);
      if (v < 0) v += data[j];
      offset = offset * data[j] + v;
    }
    for (let e = 0; e < sliceSize; ++e) targets.push(offset * sliceSize + e);
  }
  return targets;
}

// ScatterND, reduction "none": for each output element written by more than one update, the positions in
// updates of all its writers.
function duplicateWriters(spec, indices) {
  const writers = new Map();
  scatterTargets(spec, indices).forEach((at, u) => {
    if (!writers.has(at)) writers.set(at, []);
    writers.get(at).push(u);
  });
  for (const [at, list] of writers) {
    if (list.length < 2) writers.delete(at);
  }
  return writers;
}

// ScatterND max/min as ORT's CPU provider computes them: current = current > update ? current : update
// (max; < for min), applied in row-major order. Unlike ONNX's reference implementation, np.maximum /
// np.minimum, this drops a NaN already in the output when an update arrives.
function ortScatterMaxMin(spec, data, indices, updates) {
  const out = data.slice();
  const max = spec.reduction === 'max';
  scatterTargets(spec, indices).forEach((at, u) => {
    const a = out[at], b = updates[u];
    out[at] = (max ? a > b : a < b) ? a : b;
  });
  return out;
}

// A short, case-independent form of an ORT error message, to group skip reasons.
function reasonOf(error) {
  const line = String(error && error.message ? error.message : error).split('\n')[0];
  return line.replace(/random_\w+?_\d+/g, '<node>')
    .replace(/^Load model from .*? failed:/, 'Load model failed: ')
    .replace(/^Non-zero status code returned while running \w+ node\. Name:'<node>' Status Message: /, '')
    .replace(/^\/\S*\/(\w+\.cc):\d+ .*? (\w+ op:)/, '$1: $2')  // source path and function signature
    .replace(/\s+/g, ' ').trim();
}

// An ORT message with its numbers replaced by N, to group the refusals of different cases.
const withoutNumbers = (reason) => reason.replace(/-?\d+/g, 'N');

// --- one case ---------------------------------------------------------------------------------------------

// Returns { outcome: 'pass' | 'fail' | 'skip', reason? (skip), note? (fail), known? (a KNOWN line),
//           widened? (why the exact model was refused), refusal? (ORT's index error), reordered? }.
async function runCase(ort, options, opDir, testCase, entry, widen) {
  const spec = testCase.spec;
  const type = ELEMENT_TYPES[spec.dtype];
  if (!type) return { outcome: 'skip', reason: `dtype ${spec.dtype} not handled by run_ort.js` };
  const indexDtype = spec.index_dtype || 'int64';

  // The exact model first; the int64-indices one if ORT refuses it and there is one.
  let session;
  let widened = false;
  try {
    session = await ort.InferenceSession.create(path.join(opDir, entry.model), options);
  } catch (error) {
    if (!(widen && entry.widened_model)) return { outcome: 'skip', reason: `model refused: ${reasonOf(error)}` };
    try {
      session = await ort.InferenceSession.create(path.join(opDir, entry.widened_model), options);
      widened = reasonOf(error);  // why the exact model was refused
    } catch (error2) {
      return { outcome: 'skip', reason: `model refused: ${reasonOf(error2)}` };
    }
  }

  let indices = typedArray(testCase.indices, indexDtype === 'int32' ? Int32Array : BigInt64Array);
  const indexValues = indices;  // as dumped, for the duplicate check
  if (widened && indexDtype === 'int32') indices = BigInt64Array.from(indices, (v) => BigInt(v));
  const feeds = {
    data: new ort.Tensor(type.ort, typedArray(testCase.data, type.array), spec.data_shape),
    indices: new ort.Tensor(widened ? 'int64' : indexDtype, indices, spec.indices_shape),
  };
  if (spec.op === 'ScatterND') {
    const updatesShape = spec.updates_shape ||
      spec.indices_shape.slice(0, -1).concat(spec.data_shape.slice(spec.indices_shape[spec.indices_shape.length - 1]));
    feeds.updates = new ort.Tensor(type.ort, typedArray(testCase.updates, type.array), updatesShape);
  }

  let output;
  try {
    output = (await session.run(feeds)).output;
  } catch (error) {
    const reason = reasonOf(error);
    if (UNSUPPORTED.test(reason)) return { outcome: 'skip', reason: `run refused: ${reason}`, widened };
    if (testCase.expected_status === 0) {
      return { outcome: 'fail', widened, note: `ORT refused a case whose indices are all in range: ${reason}` };
    }
    if (!INDEX_ERROR.test(reason)) {
      return { outcome: 'fail', widened, note: `ORT refused a case with an out-of-range index, but not for its index: ${reason}` };
    }
    return { outcome: 'pass', widened, refusal: reason };
  } finally {
    await session.release();
  }

  if (testCase.expected_status !== 0) {
    const ran = `ORT ran a case with an out-of-range index (output dims [${output.dims}], ${output.size} elements)`;
    if (spec.op === 'GatherND' && output.size === 0) {
      // Known ORT behaviour: its GatherND returns an empty output without looking at the indices. ONNX
      // says an out-of-range index is an error, so the expected refusal is right.
      return { outcome: 'skip', widened, known: ran,
               reason: 'known ORT difference: GatherND does not check the indices when its output is empty ' +
                       '(ONNX: an out-of-range index is an error)' };
    }
    return { outcome: 'fail', widened, note: ran };
  }
  if (output.type !== type.ort) return { outcome: 'fail', widened, note: `ORT output type ${output.type}, expected ${type.ort}` };
  if (JSON.stringify(Array.from(output.dims)) !== JSON.stringify(entry.output_shape)) {
    return { outcome: 'fail', widened, note: `ORT output dims [${output.dims}], ONNX's shape rules give [${entry.output_shape}]` };
  }

  const expected = typedArray(testCase.expected_output, type.array);
  const actual = output.data;
  if (actual.length !== expected.length) {
    return { outcome: 'fail', widened, note: `ORT gave ${actual.length} elements, expected ${expected.length}` };
  }
  const writers = spec.op === 'ScatterND' && (spec.reduction || 'none') === 'none'
    ? duplicateWriters(spec, indexValues) : new Map();
  const updates = spec.op === 'ScatterND' ? typedArray(testCase.updates, type.array) : null;
  let reordered = 0;
  const differing = [];
  for (let i = 0; i < expected.length; ++i) {
    if (sameElement(actual, i, expected, i, type.kind)) continue;
    // An element several updates land on may hold any of them (ONNX: order unspecified).
    if (writers.has(i) && writers.get(i).some((u) => sameElement(actual, i, updates, u, type.kind))) {
      ++reordered;
      continue;
    }
    differing.push(i);
  }
  if (!differing.length) return { outcome: 'pass', widened, reordered };

  const first = differing[0];
  let note = `first differing element ${first} of ${expected.length}: ORT ${show(actual, first, spec.dtype)}, ` +
             `expected ${show(expected, first, spec.dtype)} (${differing.length} differ)`;
  // ScatterND max/min on floats: ORT's rule (see ortScatterMaxMin) differs from np.maximum/np.minimum on
  // NaN and on ties between -0 and +0. When ORT's output is exactly what its rule gives, say which.
  if (spec.op === 'ScatterND' && ['max', 'min'].includes(spec.reduction) && type.kind === 'float') {
    const data = typedArray(testCase.data, type.array);
    const ortRule = ortScatterMaxMin(spec, data, indexValues, updates);
    if (actual.every((_, i) => sameElement(actual, i, ortRule, i, type.kind))) {
      const nanDropped = (i) => Number.isNaN(expected[i]) && !Number.isNaN(actual[i]);
      if (differing.every(nanDropped)) {
        // ONNX's reference implementation propagates NaN, as the expected output does: ORT deviates.
        return { outcome: 'skip', widened, known: note,
                 reason: `known ORT difference: ScatterND ${spec.reduction} replaces a NaN already in the output ` +
                         `(ONNX's reference np.${spec.reduction}imum(output, update) keeps it)` };
      }
      const signedZero = (i) => expected[i] === 0 && actual[i] === 0;
      if (differing.every((i) => signedZero(i) || nanDropped(i))) {
        // Not tolerated: ONNX's reference implementation np.maximum(output, update) returns its second
        // operand, the update, on a tie (numpy 1.24), as ORT does; the expected output keeps the current value.
        note += ` -- a ${spec.reduction} tie between -0 and +0: ORT takes the update, as ONNX's reference ` +
                `np.${spec.reduction}imum(output, update) does; the expected output keeps the current value`;
      }
    }
  }
  return { outcome: 'fail', widened, note };
}

// --- all cases ----------------------------------------------------------------------------------------------

async function main() {
  const args = process.argv.slice(2);
  const widen = !args.includes('--no-widen');
  const positional = args.filter((a) => !a.startsWith('--'));
  if (positional.length !== 3) usage();
  const [casesDir, modelsDir, ortDir] = positional;
  const ort = require(path.resolve(ortDir, 'node_modules', 'onnxruntime-node'));
  // One thread and no graph rewriting: the node runs as written, and the same way every time. Only fatal
  // messages are logged: the refusals expected here are tallied below instead.
  const options = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'disabled', logSeverityLevel: 4 };

  const totals = { passed: 0, failed: 0, skipped: 0 };
  const summary = [];
  const skipReasons = new Map();  // "<Op>: reason" -> count
  const widenReasons = new Map();  // "<Op>: why ORT refused the exact model" -> count
  const refusals = new Map();  // "<Op>: ORT's message, numbers left out" -> count of out-of-range cases
  const tally = (map, key) => map.set(key, (map.get(key) || 0) + 1);
  let files = 0;
  for (const op of OPS) {
    const casesFile = path.join(casesDir, `${op}.json`);
    if (!fs.existsSync(casesFile)) continue;
    ++files;
    const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
    const opDir = path.join(modelsDir, op);
    const manifest = JSON.parse(fs.readFileSync(path.join(opDir, 'manifest.json'), 'utf8'));
    if (manifest.length !== cases.length) throw new Error(`${opDir}/manifest.json does not match ${casesFile}`);
    const counts = { passed: 0, failed: 0, skipped: 0, widened: 0, reordered: 0 };
    for (let n = 0; n < cases.length; ++n) {
      const testCase = cases[n];
      if (manifest[n].name !== testCase.spec.name) throw new Error(`${opDir}/manifest.json: case ${n} is not ${testCase.spec.name}`);
      const result = await runCase(ort, options, opDir, testCase, manifest[n], widen);
      if (result.widened && result.outcome !== 'skip') {
        ++counts.widened;
        tally(widenReasons, `${op}: ${result.widened}`);
      }
      if (result.refusal) tally(refusals, `${op}: ${withoutNumbers(result.refusal)}`);
      if (result.reordered) ++counts.reordered;
      if (result.outcome === 'pass') {
        ++counts.passed;
      } else if (result.outcome === 'skip') {
        ++counts.skipped;
        tally(skipReasons, `${op}: ${result.reason}`);
        if (result.known) {
          console.log(`KNOWN ${op} ${testCase.spec.name}: ${result.known}`);
          console.log(`  spec: ${JSON.stringify(testCase.spec)}`);
        }
      } else {
        ++counts.failed;
        console.log(`FAIL ${op} ${testCase.spec.name}${result.widened ? ' (int64-widened indices)' : ''}: ${result.note}`);
        console.log(`  spec: ${JSON.stringify(testCase.spec)}`);
        console.log(`  expected_status: ${testCase.expected_status}, in_place: ${testCase.in_place}`);
      }
    }
    for (const key of ['passed', 'failed', 'skipped']) totals[key] += counts[key];
    summary.push(`  ${op}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` +
                 (counts.widened ? ` (${counts.widened} run with int32 indices widened to int64)` : '') +
                 (counts.reordered ? ` (${counts.reordered} with duplicate ScatterND updates applied in another order)` : ''));
  }
  if (files === 0) throw new Error(`no <Op>.json case files in ${casesDir}`);

  console.log('per operator:');
  for (const line of summary) console.log(line);
  const list = (title, map) => {
    if (!map.size) return;
    console.log(title);
    for (const [reason, n] of map) console.log(`  ${n} x ${reason}`);
  };
  list('run with int64 indices because ORT refused the exact model:', widenReasons);
  list('ORT refusals of the out-of-range cases:', refusals);
  list('skip reasons:', skipReasons);
  console.log(`ort_crosscheck: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exitCode = totals.failed ? 1 : 0;
}

main().catch((error) => {
  console.error(`run_ort.js: ${error && error.stack ? error.stack : error}`);
  process.exit(2);
});
