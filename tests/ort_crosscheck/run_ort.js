#!/usr/bin/env node
// Runs every case dumped by random_kernels_test (KERNELGEN_DUMP_CASES) through ONNX Runtime, using the
// models written by make_models.py, and compares ORT's answer with the case's expected result.
//
// Usage: run_ort.js CASES_DIR MODELS_DIR ORT_DIR [--no-widen]
//   ORT_DIR holds node_modules/onnxruntime-node, as installed by
//   npm install --ignore-scripts --no-audit --no-fund --prefix ORT_DIR onnxruntime-node@1.30.0
//
// Per case:
//   expected_status 0  -> ORT must run, give the output shape ONNX's rules give, and the expected elements:
//                         integers and bool byte for byte; float32/float64 any NaN equals any NaN, every
//                         other value bit for bit (so -0 != +0); float16/bfloat16 the same on the 16-bit
//                         patterns; complex64/complex128 the same, part by part; strings by value.
//   expected_status -1 -> some index is out of range: ORT must refuse to run.
// A case ORT cannot run at all for a reason unrelated to the index values (its model is refused, e.g. a
// complex type ORT does not register, or the run fails with NOT_IMPLEMENTED / an unsupported type, e.g.
// ScatterND reductions on float16/bfloat16) is skipped, and the reasons are listed at the end, grouped.
//
// Element types onnxruntime-node cannot pass: bfloat16 travels as float32 (make_models.py casts around the
// node; a bfloat16 pattern p is the float32 with bits p << 16, so nothing is lost but NaN payloads, and
// NaNs compare as NaN anyway). complex64/complex128 have no tensor type in onnxruntime-node at all: should
// ORT ever load such a model, the case is skipped for that reason.
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
// float16/bfloat16 ScatterND add/mul (kernelgen: each step in float32, rounded to the nearest pattern, ties
// to even): an element where ORT is exactly 1 ulp off is accepted when the expected value is the one that
// rule gives (recomputed here, independently of tests/reference.cpp), and such a case is counted apart, as
// "passed within 1 ulp", and printed as ULP. If instead ORT follows the rule and the expected value does not,
// the case fails. Nowhere else is any difference allowed.
//
// Known ORT behaviours where ONNX sides with the expected result are skipped with their reason, and each
// such case is printed as KNOWN (so they do not fail the test, whatever the seed):
//   - GatherND whose output is empty: ORT returns it without checking the indices; ONNX says an
//     out-of-range index is an error.
//   - Gather on strings where each gathered slice of data has more than one element: ORT's output is exactly
//     the first string of each slice, the others empty (its string branch copies one std::string per
//     slice); ONNX gathers the whole slice.
//   - ScatterND and ScatterElements max/min on float32/float64 (and ScatterElements' on float16) where ORT's
//     output is exactly its rule's (see ortScatterMaxMin) and differs only by dropping a NaN the output already
//     held; ONNX's reference np.maximum/np.minimum propagates it. A -0/+0 tie, where ONNX's reference sides with
//     ORT, still fails, with a note.
//
// Prints each disagreement with its spec, then counts per operator and per element type, the skip reasons,
// and last the line "ort_crosscheck: N passed, N passed within 1 ulp, N failed, N skipped". Exits 1 if any
// case failed.
'use strict';

const fs = require('fs');
const path = require('path');

const OPS = ['Gather', 'GatherElements', 'GatherND', 'ScatterND', 'ScatterElements', 'TensorScatter'];
const SCATTERS = ['ScatterND', 'ScatterElements', 'TensorScatter'];

// The half-precision formats: sign, exponent and mantissa bits of the 16-bit pattern.
const FLOAT16 = { exponentBits: 5, mantissaBits: 10 };
const BFLOAT16 = { exponentBits: 8, mantissaBits: 7 };

// The spec's dtype -> its canonical name (for the per-type counts), the ORT tensor type data, updates and
// output have on the model's interface (null: onnxruntime-node has none), the typed array of the dumped
// bytes (complex: of the parts) and how two elements compare (kind, see sameElement).
const ELEMENT_TYPES = {
  float32: { name: 'float32', ort: 'float32', array: Float32Array, kind: 'float' },
  float: { name: 'float32', ort: 'float32', array: Float32Array, kind: 'float' },
  float64: { name: 'float64', ort: 'float64', array: Float64Array, kind: 'float' },
  float16: { name: 'float16', ort: 'float16', array: Uint16Array, kind: 'half', format: FLOAT16 },
  // Carried as float32 (see make_models.py): the model's interface type is not the element type.
  bfloat16: { name: 'bfloat16', ort: 'float32', array: Uint16Array, kind: 'half', format: BFLOAT16, carrier: 'float32' },
  int8: { name: 'int8', ort: 'int8', array: Int8Array, kind: 'int' },
  int16: { name: 'int16', ort: 'int16', array: Int16Array, kind: 'int' },
  int32: { name: 'int32', ort: 'int32', array: Int32Array, kind: 'int' },
  int64: { name: 'int64', ort: 'int64', array: BigInt64Array, kind: 'int' },
  uint8: { name: 'uint8', ort: 'uint8', array: Uint8Array, kind: 'int' },
  uint16: { name: 'uint16', ort: 'uint16', array: Uint16Array, kind: 'int' },
  uint32: { name: 'uint32', ort: 'uint32', array: Uint32Array, kind: 'int' },
  uint64: { name: 'uint64', ort: 'uint64', array: BigUint64Array, kind: 'int' },
  bool: { name: 'bool', ort: 'bool', array: Uint8Array, kind: 'bool' },  // one byte per element, 0 or 1
  complex64: { name: 'complex64', ort: null, array: Float32Array, kind: 'complex' },  // (re, im) pairs
  complex128: { name: 'complex128', ort: null, array: Float64Array, kind: 'complex' },
  string: { name: 'string', ort: 'string', kind: 'string' },  // JSON arrays instead of bytes
};
const TYPE_NAMES = [...new Set(Object.values(ELEMENT_TYPES).map((t) => t.name))];

// Messages of ORT errors that say it cannot run this model at all, whatever the index values.
const UNSUPPORTED = /NOT_IMPLEMENTED|not implemented|not supported|unsupported|Could not find an implementation/i;
// Messages of ORT errors about index values (out of range, or any index into a dimension of size 0): the
// refusal a case with expected_status -1 must get. Any other error there counts as a disagreement.
// (TensorScatter: "write_indices[1] = -1 is negative", and linear mode's "wi <= max_sequence_length -
// sequence_length was false".)
const INDEX_ERROR = /out of (data )?bounds|out of range|invalid ind(ex|ice)|indices must be empty|write_indices\[\d+\] = -\d+ is negative|wi <= max_sequence_length - sequence_length/i;

function usage() {
  console.error('usage: run_ort.js CASES_DIR MODELS_DIR ORT_DIR [--no-widen]');
  process.exit(2);
}

// --- bytes, elements and shapes -------------------------------------------------------------------------

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

// The dumped tensors: data, updates, expected_output; string cases have them as JSON arrays instead.
const STRING_FIELDS = { data: 'data_strings', updates: 'updates_strings', expected_output: 'expected_strings' };

// A dumped tensor as ORT's input takes it: the typed array of its bytes as they are (so NaN payloads
// survive), bfloat16 patterns p moved to float32 bits p << 16, strings as they are.
function ortInput(type, testCase, field) {
  if (type.kind === 'string') return testCase[STRING_FIELDS[field]];
  const array = typedArray(testCase[field], type.array);
  if (type.carrier === 'float32') return new Float32Array(Uint32Array.from(array, (p) => p << 16).buffer);
  return array;
}

// A dumped tensor as a plain array of elements to compare: numbers or BigInts (half types: the 16-bit
// patterns), [re, im] pairs for complex, strings.
function elementsOf(type, testCase, field) {
  if (type.kind === 'string') return Array.from(testCase[STRING_FIELDS[field]]);
  const array = typedArray(testCase[field], type.array);
  if (type.kind !== 'complex') return Array.from(array);
  const pairs = [];
  for (let i = 0; i < array.length; i += 2) pairs.push([array[i], array[i + 1]]);
  return pairs;
}

// ORT's output as such an array. Half types are read as bit patterns whatever typed array ORT hands back
// (Uint16Array, or Float16Array where JavaScript has it); bfloat16 comes as float32 and must be exactly a
// bfloat16 (low 16 bits zero).
function elementsOfOutput(type, output) {
  const data = output.data;
  if (type.kind === 'string') return Array.from(data);
  if (type.carrier === 'float32') {
    const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
    return Array.from(bits, (b) => {
      if (b & 0xFFFF) throw new Error(`ORT's bfloat16 output cast to float32 is not a bfloat16: 0x${b.toString(16)}`);
      return b >>> 16;
    });
  }
  if (type.kind === 'half') return Array.from(new Uint16Array(data.buffer, data.byteOffset, data.length));
  if (type.kind === 'complex') {  // ORT output as interleaved parts, should it ever have them
    const pairs = [];
    for (let i = 0; i < data.length; i += 2) pairs.push([data[i], data[i + 1]]);
    return pairs;
  }
  return Array.from(data);
}

// --- half precision ---------------------------------------------------------------------------------------

const bias = (f) => (1 << (f.exponentBits - 1)) - 1;
const maxExponent = (f) => (1 << f.exponentBits) - 1;

// The value of a 16-bit pattern (exact: every float16 and bfloat16 value is a float32, hence a double).
function halfValue(bits, f) {
  const m = f.mantissaBits;
  const exponent = (bits >> m) & maxExponent(f), mantissa = bits & ((1 << m) - 1);
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === maxExponent(f)) return mantissa ? NaN : sign * Infinity;
  if (exponent === 0) return sign * mantissa * 2 ** (1 - bias(f) - m);
  return sign * ((1 << m) + mantissa) * 2 ** (exponent - bias(f) - m);
}

const isHalfNaN = (bits, f) => Number.isNaN(halfValue(bits, f));

// Round half to even, for q >= 0.
function roundHalfEven(q) {
  const low = Math.floor(q), rest = q - low;
  return rest > 0.5 || (rest === 0.5 && low % 2 === 1) ? low + 1 : low;
}

// The pattern nearest to x, ties to the even pattern, beyond the largest finite value infinity; NaN gives
// the quiet NaN (NaNs compare as NaN anyway).
function halfBits(x, f) {
  const m = f.mantissaBits;
  if (Number.isNaN(x)) return (maxExponent(f) << m) | (1 << (m - 1));
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | (maxExponent(f) << m);
  // a ~ q * 2^(e - m): e the exponent of a, but not below the smallest normal one (subnormals share its grid).
  let e = 1 - bias(f);
  if (a >= 2 ** e) {
    e = Math.floor(Math.log2(a));
    while (2 ** e > a) --e;
    while (2 ** (e + 1) <= a) ++e;
  }
  let q = roundHalfEven(a / 2 ** (e - m));  // exact division: by a power of two
  if (q === 2 ** (m + 1)) {  // rounded up to the next power of two
    q /= 2;
    ++e;
  }
  if (e > bias(f)) return sign | (maxExponent(f) << m);
  if (q < 2 ** m) return sign | q;  // subnormal (or zero)
  return sign | ((e + bias(f)) << m) | (q - 2 ** m);
}

// kernelgen's float16/bfloat16 add and mul: the operation on the two values in float32 (Math.fround of the
// double result is the correctly rounded float32 result for + and *), then rounded to the format.
function halfCombine(reduction, f) {
  return (current, update) => {
    const a = halfValue(current, f), b = halfValue(update, f);
    return halfBits(Math.fround(reduction === 'add' ? a + b : a * b), f);
  };
}

// Steps apart in the order of the values (-0 and +0 count as one): 1 for neighbouring patterns, NaN if
// either is NaN.
function ulpDistance(x, y, f) {
  if (isHalfNaN(x, f) || isHalfNaN(y, f)) return NaN;
  const ordinal = (b) => (b & 0x8000 ? -(b & 0x7FFF) : b);
  return Math.abs(ordinal(x) - ordinal(y));
}

// --- comparing ---------------------------------------------------------------------------------------------

const sameFloat = (x, y) => (Number.isNaN(x) && Number.isNaN(y)) || Object.is(x, y);  // Object.is: bits, but -0 != +0

// Two elements agree: floats (and each complex part) when both are NaN or have the same bits, half types the
// same on their patterns; everything else by value (integers, bool, strings).
function sameElement(type, x, y) {
  switch (type.kind) {
    case 'float': return sameFloat(x, y);
    case 'half': return (isHalfNaN(x, type.format) && isHalfNaN(y, type.format)) || x === y;
    case 'complex': return sameFloat(x[0], y[0]) && sameFloat(x[1], y[1]);
    default: return x === y;
  }
}

// An element, readable in a message (BigInts, bools, -0, half patterns with their value, strings quoted).
function show(type, v) {
  const number = (x) => (Object.is(x, -0) ? '-0' : String(x));
  switch (type.kind) {
    case 'bool': return v ? 'true' : 'false';
    case 'float': return number(v);
    case 'half': return `0x${v.toString(16).padStart(4, '0')} (${number(halfValue(v, type.format))})`;
    case 'complex': return `(${number(v[0])}, ${number(v[1])})`;
    case 'string': return JSON.stringify(v);
    default: return String(v);
  }
}

// --- ScatterND ------------------------------------------------------------------------------------------------

// ScatterND: for each update element, the output element it lands on. Computed from ONNX's description:
// indices is a grid of k-tuples, each naming a slice data[i0, ..., ik-1, :, ...] that receives one slice
// of updates, in row-major order.
function scatterTargets(spec, indices) {
  if (spec.op === 'ScatterElements') return elementsTargets(spec, indices);
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

// ScatterElements: update u (a position of indices, in row-major order) lands on u's coordinates with the
// axis coordinate replaced by indices[u].
function elementsTargets(spec, indices) {
  const data = spec.data_shape;
  const shape = spec.indices_shape;
  const axis = (spec.axis || 0) < 0 ? spec.axis + data.length : (spec.axis || 0);
  const targets = [];
  for (let u = 0; u < indices.length; ++u) {
    let rest = u;
    const coords = new Array(shape.length);
    for (let d = shape.length - 1; d >= 0; --d) {
      coords[d] = rest % shape[d];
      rest = Math.floor(rest / shape[d]);
    }
    let v = Number(indices[u]);
    if (v < 0) v += data[axis];
    coords[axis] = v;
    targets.push(coords.reduce((offset, c, d) => offset * data[d] + c, 0));
  }
  return targets;
}

// A scatter with reduction "none": for each output element written by more than one update, the positions in
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

// ScatterND with combine(current, update) applied for each update in row-major order, as ONNX describes.
function scatterWith(spec, data, indices, updates, combine) {
  const out = data.slice();
  scatterTargets(spec, indices).forEach((at, u) => { out[at] = combine(out[at], updates[u]); });
  return out;
}

// ScatterND and ScatterElements max/min on float32/float64 (and ScatterElements' on float16, compared by value)
// as ORT's CPU provider computes them: current = current > update ? current : update (max; < for min). Unlike
// ONNX's reference implementation, np.maximum / np.minimum, this drops a NaN already in the output when an update
// arrives (a NaN update it keeps, as the reference does).
function ortScatterMaxMin(spec, type, data, indices, updates) {
  const max = spec.reduction === 'max';
  const value = type.kind === 'half' ? (x) => halfValue(x, type.format) : (x) => x;
  return scatterWith(spec, data, indices, updates, (a, b) => ((max ? value(a) > value(b) : value(a) < value(b)) ? a : b));
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

// A skip reason's group and what varies within it: ORT's "<type> data type is not supported with ScatterND
// opset N when reduction is 'r'." messages group by type, listing the reductions; others stand alone.
function skipGroupOf(reason) {
  const m = /^(.*) opset \d+ when reduction is '(\w+)'\.?$/.exec(reason);
  return m ? { group: `${m[1]} when reduction is`, variant: m[2] } : { group: reason, variant: null };
}

// --- one case ---------------------------------------------------------------------------------------------

// Returns { outcome: 'pass' | 'ulp' | 'fail' | 'skip', reason? (skip), note? (fail), known? (a KNOWN line),
//           ulp? (an ULP line), widened? (why the exact model was refused), refusal? (ORT's index error),
//           reordered? }.
async function runCase(ort, options, opDir, testCase, entry, widen) {
  const spec = testCase.spec;
  const type = ELEMENT_TYPES[spec.dtype];
  if (!type) return { outcome: 'skip', reason: `dtype ${spec.dtype} not handled by run_ort.js` };
  if (entry.io_dtype !== (type.carrier || spec.dtype)) {
    throw new Error(`${entry.model}: model interface type ${entry.io_dtype}, run_ort.js expects ${type.carrier || spec.dtype} (stale models?)`);
  }
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
  if (!type.ort) {
    await session.release();
    return { outcome: 'skip', widened, reason: `onnxruntime-node has no ${type.name} tensor type to feed` };
  }

  let indices = typedArray(testCase.indices, indexDtype === 'int32' ? Int32Array : BigInt64Array);
  const indexValues = indices;  // as dumped, for the duplicate check
  if (widened && indexDtype === 'int32') indices = BigInt64Array.from(indices, (v) => BigInt(v));
  const feeds = {
    data: new ort.Tensor(type.ort, ortInput(type, testCase, 'data'), spec.data_shape),
    indices: new ort.Tensor(widened ? 'int64' : indexDtype, indices, spec.indices_shape),
  };
  if (SCATTERS.includes(spec.op)) {
    const updatesShape = spec.op === 'ScatterElements' ? spec.indices_shape : spec.updates_shape ||
      spec.indices_shape.slice(0, -1).concat(spec.data_shape.slice(spec.indices_shape[spec.indices_shape.length - 1]));
    feeds.updates = new ort.Tensor(type.ort, ortInput(type, testCase, 'updates'), updatesShape);
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

  const expected = elementsOf(type, testCase, 'expected_output');
  let actual;
  try {
    actual = elementsOfOutput(type, output);
  } catch (error) {
    return { outcome: 'fail', widened, note: error.message };
  }
  if (actual.length !== expected.length) {
    return { outcome: 'fail', widened, note: `ORT gave ${actual.length} elements, expected ${expected.length}` };
  }
  const reduction = spec.reduction || 'none';
  const scatter = SCATTERS.includes(spec.op);
  // (TensorScatter writes each cache position once: a sequence is never longer than the cache.)
  const writers = scatter && reduction === 'none' && spec.op !== 'TensorScatter' ? duplicateWriters(spec, indexValues) : new Map();
  const updates = scatter ? elementsOf(type, testCase, 'updates') : null;
  let reordered = 0;
  const differing = [];
  for (let i = 0; i < expected.length; ++i) {
    if (sameElement(type, actual[i], expected[i])) continue;
    // An element several updates land on may hold any of them (ONNX: order unspecified).
    if (writers.has(i) && writers.get(i).some((u) => sameElement(type, actual[i], updates[u]))) {
      ++reordered;
      continue;
    }
    differing.push(i);
  }
  if (!differing.length) return { outcome: 'pass', widened, reordered };

  const first = differing[0];
  let note = `first differing element ${first} of ${expected.length}: ORT ${show(type, actual[first])}, ` +
             `expected ${show(type, expected[first])} (${differing.length} differ)`;

  // float16/bfloat16 ScatterND add/mul: ORT may round differently. Recompute the stated rule (each step in
  // float32, rounded to nearest even) and see which side follows it.
  if (scatter && ['add', 'mul'].includes(reduction) && type.kind === 'half') {
    const rule = scatterWith(spec, elementsOf(type, testCase, 'data'), indexValues, updates,
                             halfCombine(reduction, type.format));
    const oneUlp = differing.filter((i) => ulpDistance(actual[i], expected[i], type.format) === 1);
    const expectedFollowsRule = differing.every((i) => sameElement(type, expected[i], rule[i]));
    const ortFollowsRule = differing.every((i) => sameElement(type, actual[i], rule[i]));
    if (oneUlp.length === differing.length && expectedFollowsRule) {
      return { outcome: 'ulp', widened, reordered,
               ulp: `${note}: 1 ulp apart on every differing element; the expected values follow the float32-then-round ` +
                    `rule, ORT rounds otherwise` };
    }
    note += ` -- the float32-then-round rule gives ${show(type, rule[first])} here; ` +
            (ortFollowsRule ? 'ORT follows the rule on every differing element and the expected output does not'
              : expectedFollowsRule ? 'the expected output follows it, but ORT is more than 1 ulp off'
                : 'neither side follows it everywhere');
    return { outcome: 'fail', widened, note };
  }

  // Gather on strings: ORT's CPU provider assigns one std::string per gathered slice, the first, and leaves
  // the others of the slice empty (its string branch copies one element where the numeric branch memcpys
  // the whole block). ONNX gathers every element of the slice, as the expected output does.
  if (spec.op === 'Gather' && type.kind === 'string') {
    const rank = spec.data_shape.length;
    const axis = (spec.axis || 0) < 0 ? spec.axis + rank : (spec.axis || 0);
    const block = count(spec.data_shape.slice(axis + 1));
    if (block > 1 && actual.every((v, i) => v === (i % block === 0 ? expected[i] : ''))) {
      return { outcome: 'skip', widened, known: note,
               reason: 'known ORT difference: Gather on strings copies only the first string of each slice of ' +
                       'data it gathers (more than one element after the axis) and leaves the rest empty ' +
                       '(ONNX: the whole slice)' };
    }
  }

  // Scatter max/min on float types: ORT's rule (see ortScatterMaxMin) differs from np.maximum/np.minimum on NaN
  // and on ties between -0 and +0. When ORT's output is exactly what its rule gives, say which.
  if (scatter && ['max', 'min'].includes(reduction) && ['float', 'half'].includes(type.kind)) {
    const ortRule = ortScatterMaxMin(spec, type, elementsOf(type, testCase, 'data'), indexValues, updates);
    if (actual.every((v, i) => sameElement(type, v, ortRule[i]))) {
      const nanOf = type.kind === 'half' ? (x) => isHalfNaN(x, type.format) : Number.isNaN;
      const nanDropped = (i) => nanOf(expected[i]) && !nanOf(actual[i]);
      if (differing.every(nanDropped)) {
        // ONNX's reference implementation propagates NaN, as the expected output does: ORT deviates.
        return { outcome: 'skip', widened, known: note,
                 reason: `known ORT difference: ${spec.op} ${reduction} replaces a NaN already in the output ` +
                         `(ONNX's reference np.${reduction}imum(output, update) keeps it)` };
      }
      const value = type.kind === 'half' ? (x) => halfValue(x, type.format) : (x) => x;
      const signedZero = (i) => value(expected[i]) === 0 && value(actual[i]) === 0;
      if (differing.every((i) => signedZero(i) || nanDropped(i))) {
        // Not tolerated: ONNX's reference implementation np.maximum(output, update) returns its second
        // operand, the update, on a tie (numpy 1.24), as ORT does; the expected output keeps the current value.
        note += ` -- a ${reduction} tie between -0 and +0: ORT takes the update, as ONNX's reference ` +
                `np.${reduction}imum(output, update) does; the expected output keeps the current value`;
      }
    }
  }
  return { outcome: 'fail', widened, note };
}

// --- all cases ----------------------------------------------------------------------------------------------

const OUTCOMES = ['passed', 'ulp', 'failed', 'skipped'];
const COUNTED_AS = { pass: 'passed', ulp: 'ulp', fail: 'failed', skip: 'skipped' };
const newCounts = () => ({ passed: 0, ulp: 0, failed: 0, skipped: 0, widened: 0, reordered: 0 });

// "N passed, N failed, N skipped", with the 1-ulp passes, widened and reordered cases when there are any.
function countsLine(counts) {
  return `${counts.passed} passed, ` + (counts.ulp ? `${counts.ulp} passed within 1 ulp, ` : '') +
         `${counts.failed} failed, ${counts.skipped} skipped` +
         (counts.widened ? ` (${counts.widened} run with int32 indices widened to int64)` : '') +
         (counts.reordered ? ` (${counts.reordered} with duplicate scatter updates applied in another order)` : '');
}

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

  const totals = newCounts();
  const perOp = new Map();  // op -> counts
  const perType = new Map(TYPE_NAMES.map((name) => [name, newCounts()]));
  const skipReasons = new Map();  // reason group -> { ops: Map(op -> count), variants: Set }
  const widenReasons = new Map();  // "<Op>: why ORT refused the exact model" -> count
  const refusals = new Map();  // "<Op>: ORT's message, numbers left out" -> count of out-of-range cases
  const tally = (map, key) => map.set(key, (map.get(key) || 0) + 1);
  for (const op of OPS) {
    const casesFile = path.join(casesDir, `${op}.json`);
    if (!fs.existsSync(casesFile)) continue;
    const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
    const opDir = path.join(modelsDir, op);
    const manifest = JSON.parse(fs.readFileSync(path.join(opDir, 'manifest.json'), 'utf8'));
    if (manifest.length !== cases.length) throw new Error(`${opDir}/manifest.json does not match ${casesFile}`);
    const counts = newCounts();
    perOp.set(op, counts);
    for (let n = 0; n < cases.length; ++n) {
      const testCase = cases[n];
      const spec = testCase.spec;
      if (manifest[n].name !== spec.name) throw new Error(`${opDir}/manifest.json: case ${n} is not ${spec.name}`);
      const result = await runCase(ort, options, opDir, testCase, manifest[n], widen);
      const typeCounts = perType.get((ELEMENT_TYPES[spec.dtype] || {}).name) || newCounts();
      const add = (key) => { ++counts[key]; ++typeCounts[key]; ++totals[key]; };
      add(COUNTED_AS[result.outcome]);
      if (result.widened && result.outcome !== 'skip') {
        add('widened');
        tally(widenReasons, `${op}: ${result.widened}`);
      }
      if (result.refusal) tally(refusals, `${op}: ${withoutNumbers(result.refusal)}`);
      if (result.reordered) add('reordered');
      const printSpec = () => console.log(`  spec: ${JSON.stringify(spec)}`);
      if (result.outcome === 'skip') {
        const { group, variant } = skipGroupOf(result.reason);
        if (!skipReasons.has(group)) skipReasons.set(group, { ops: new Map(), variants: new Set() });
        tally(skipReasons.get(group).ops, op);
        if (variant) skipReasons.get(group).variants.add(variant);
        if (result.known) {
          console.log(`KNOWN ${op} ${spec.name}: ${result.known}`);
          printSpec();
        }
      } else if (result.outcome === 'ulp') {
        console.log(`ULP ${op} ${spec.name}: ${result.ulp}`);
        printSpec();
      } else if (result.outcome === 'fail') {
        console.log(`FAIL ${op} ${spec.name}${result.widened ? ' (int64-widened indices)' : ''}: ${result.note}`);
        printSpec();
        console.log(`  expected_status: ${testCase.expected_status}, in_place: ${testCase.in_place}`);
      }
    }
  }
  if (!perOp.size) throw new Error(`no <Op>.json case files in ${casesDir}`);

  console.log('per operator:');
  for (const [op, counts] of perOp) console.log(`  ${op}: ${countsLine(counts)}`);
  console.log('per element type:');
  for (const [name, counts] of perType) {
    if (OUTCOMES.some((key) => counts[key])) console.log(`  ${name}: ${countsLine(counts)}`);
  }
  const list = (title, map, line) => {
    if (!map.size) return;
    console.log(title);
    for (const [key, value] of map) console.log(line(key, value));
  };
  list('run with int64 indices because ORT refused the exact model:', widenReasons, (reason, n) => `  ${n} x ${reason}`);
  list('ORT refusals of the out-of-range cases:', refusals, (reason, n) => `  ${n} x ${reason}`);
  list('skip reasons:', skipReasons, (group, { ops, variants }) => {
    const n = [...ops.values()].reduce((a, b) => a + b, 0);
    const reason = variants.size ? `${group} ${[...variants].sort().join('/')}` : group;
    return `  ${n} x ${reason} [${[...ops].map(([op, k]) => `${op} ${k}`).join(', ')}]`;
  });
  console.log(`ort_crosscheck: ${totals.passed} passed, ${totals.ulp} passed within 1 ulp, ${totals.failed} failed, ` +
              `${totals.skipped} skipped`);
  process.exitCode = totals.failed ? 1 : 0;
}

main().catch((error) => {
  console.error(`run_ort.js: ${error && error.stack ? error.stack : error}`);
  process.exit(2);
});
