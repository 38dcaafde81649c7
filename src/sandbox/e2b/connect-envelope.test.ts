import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ENVELOPE_END_STREAM,
  EnvelopeDecoder,
  encodeEnvelope,
  encodeJsonEnvelope,
  parseEnvelopeJson,
} from './connect-envelope.ts';
import { isRpcError } from './rpc-error.ts';

describe('Connect envelopes', () => {
  it('frames a message as flags, big-endian length, payload', () => {
    assert.deepEqual([...encodeEnvelope(Buffer.from('hi'), ENVELOPE_END_STREAM)], [2, 0, 0, 0, 2, 104, 105]);
  });

  it('decodes messages split across chunks at every byte, and several in one chunk', () => {
    const wire = Buffer.concat([
      encodeJsonEnvelope({ event: { start: { pid: 7 } } }),
      encodeJsonEnvelope({ event: { data: { stdout: 'aGk=' } } }),
      encodeJsonEnvelope({}, ENVELOPE_END_STREAM),
    ]);
    for (let cut = 0; cut <= wire.length; cut++) {
      const decoder = new EnvelopeDecoder(1024);
      const got = [...decoder.push(wire.subarray(0, cut)), ...decoder.push(wire.subarray(cut))];
      decoder.finish();
      assert.deepEqual(
        got.map((e) => [e.flags, parseEnvelopeJson(e)]),
        [
          [0, { event: { start: { pid: 7 } } }],
          [0, { event: { data: { stdout: 'aGk=' } } }],
          [2, {}],
        ],
      );
    }
  });

  it('refuses compressed and unknown flags, oversized messages, and a stream cut inside an envelope', () => {
    const refuses = (fn: () => unknown, code: string, pattern: RegExp) =>
      assert.throws(fn, (e: unknown) => isRpcError(e) && e.code === code && pattern.test(e.message));
    refuses(
      () => new EnvelopeDecoder(10).push(encodeEnvelope(Buffer.from('x'), 1)),
      'invalid_argument',
      /compressed/,
    );
    refuses(
      () => new EnvelopeDecoder(10).push(encodeEnvelope(Buffer.from('x'), 0x10)),
      'invalid_argument',
      /flags/,
    );
    refuses(
      () => new EnvelopeDecoder(10).push(encodeEnvelope(Buffer.alloc(11))),
      'resource_exhausted',
      /11 bytes/,
    );
    const decoder = new EnvelopeDecoder(10);
    assert.deepEqual(decoder.push(encodeEnvelope(Buffer.from('{}')).subarray(0, 6)), []);
    refuses(() => decoder.finish(), 'invalid_argument', /ended inside an envelope/);
  });

  it("reports malformed JSON as the sender's error", () => {
    assert.throws(
      () => parseEnvelopeJson({ flags: 0, data: Buffer.from('{x') }),
      (e: unknown) => isRpcError(e) && e.code === 'invalid_argument',
    );
  });
});
