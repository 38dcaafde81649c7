import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readSafetensors } from './safetensors.ts';

function file(header: Record<string, unknown>, body: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + body.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(body, 8 + json.length);
  return out;
}

it('reads F16 (normal, subnormal, negative) and skips __metadata__', () => {
  const halves = new Uint16Array([0x3c00, 0xc000, 0x0001, 0x7bff]); // 1, -2, 2^-24, 65504
  const bytes = file(
    { __metadata__: { format: 'pt' }, w: { dtype: 'F16', shape: [2, 2], data_offsets: [0, 8] } },
    new Uint8Array(halves.buffer),
  );
  const w = readSafetensors(bytes, 'x.safetensors').get('w')!;
  assert.deepEqual(w.shape, [2, 2]);
  assert.deepEqual(Array.from(w.data), [1, -2, 2 ** -24, 65504]);
});

it('refuses what it cannot read, naming the tensor', () => {
  const body = new Uint8Array(8);
  assert.throws(
    () => readSafetensors(file({ ids: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, body), 'x'),
    /ids is I64, not F32, F16 or BF16/,
  );
  assert.throws(
    () => readSafetensors(file({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, body), 'x'),
    /w's bytes \[0, 16\) do not fit/,
  );
  assert.throws(
    () => readSafetensors(new Uint8Array([255, 255, 0, 0, 0, 0, 0, 0]), 'x'),
    /runs past the end/,
  );
});
