import { ConfigError } from '../../errors.ts';

export interface Tensor {
  shape: number[];
  /** Row-major values, widened to float32. */
  data: Float32Array;
}

const DTYPES = ['F32', 'F16', 'BF16'] as const;

/**
 * The tensors of a `.safetensors` file: an 8-byte little-endian header length, a JSON header naming
 * each tensor's dtype, shape and byte range, then the bytes. F32, F16 and BF16 are read (widened to
 * float32); others are refused by name. Written here because the npm registry has no reader for Node.
 */
export function readSafetensors(bytes: Uint8Array, source: string): Map<string, Tensor> {
  const fail = (why: string) => new ConfigError(`${source}: not a safetensors file we can read: ${why}`);
  if (bytes.length < 8) throw fail('shorter than its header length');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > bytes.length - 8) throw fail(`header length ${headerLength} runs past the end`);
  let header: Record<string, { dtype?: unknown; shape?: unknown; data_offsets?: unknown }>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  } catch (e) {
    throw fail(`its header is not JSON (${(e as Error).message})`);
  }
  const body = 8 + headerLength;
  const tensors = new Map<string, Tensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const { dtype, shape, data_offsets: offsets } = entry;
    if (!DTYPES.includes(dtype as (typeof DTYPES)[number]))
      throw fail(`${name} is ${String(dtype)}, not F32, F16 or BF16`);
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0))
      throw fail(`${name} has no valid shape`);
    if (!Array.isArray(offsets) || offsets.length !== 2) throw fail(`${name} has no data_offsets`);
    const [begin, end] = offsets as [number, number];
    const count = shape.reduce((a: number, b: number) => a * b, 1);
    const width = dtype === 'F32' ? 4 : 2;
    if (!(begin >= 0 && end === begin + count * width && body + end <= bytes.length)) {
      throw fail(`${name}'s bytes [${begin}, ${end}) do not fit its shape or the file`);
    }
    tensors.set(name, { shape, data: widen(view, body + begin, count, dtype as (typeof DTYPES)[number]) });
  }
  return tensors;
}

function widen(view: DataView, at: number, count: number, dtype: (typeof DTYPES)[number]): Float32Array {
  const out = new Float32Array(count);
  if (dtype === 'F32') {
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(at + 4 * i, true);
  } else if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = view.getUint16(at + 2 * i, true) << 16;
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(at + 2 * i, true));
  }
  return out;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
