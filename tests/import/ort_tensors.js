// What the ONNX Runtime runners of the import tests share: tensors from their JSON form ({"type", "dims", "hex"},
// little-endian bytes) to onnxruntime-node's Tensor, and a session's results back to that form.
'use strict';

// (float16 as its 16-bit patterns.)
const ARRAYS = { float32: Float32Array, float16: Uint16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array };

// {"<input name>": {"type", "dims", "hex"}, ...} as the feeds of session.run().
function toFeeds(ort, inputs) {
  const feeds = {};
  for (const [name, tensor] of Object.entries(inputs)) {
    const ArrayType = ARRAYS[tensor.type];
    if (!ArrayType) throw new Error(`input ${name}: unsupported type ${tensor.type}`);
    const bytes = Buffer.from(tensor.hex, 'hex');
    const buffer = new ArrayBuffer(bytes.length);
    new Uint8Array(buffer).set(bytes);
    feeds[name] = new ort.Tensor(tensor.type, new ArrayType(buffer), tensor.dims);
  }
  return feeds;
}

// Every output of the session, from its results, in the JSON form.
function fromResults(session, results) {
  const outputs = {};
  for (const name of session.outputNames) {
    const data = results[name].data;
    outputs[name] = {
      type: results[name].type,
      dims: Array.from(results[name].dims),
      hex: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex'),
    };
  }
  return outputs;
}

module.exports = { toFeeds, fromResults };
