import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createExecStreamParser } from './parse-exec-stream.ts';

function frame(type: number, payload: string): Buffer {
  const body = Buffer.from(payload);
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}

function parseAll(chunks: Buffer[]): { stdout: string; stderr: string; frames: number } {
  const out = { stdout: '', stderr: '', frames: 0 };
  const feed = createExecStreamParser((stream, payload) => {
    out[stream] += payload.toString();
    out.frames++;
  });
  for (const c of chunks) feed(c);
  return out;
}

describe('createExecStreamParser', () => {
  it('splits stdout and stderr frames', () => {
    const r = parseAll([Buffer.concat([frame(1, 'out1 '), frame(2, 'err'), frame(1, 'out2')])]);
    assert.equal(r.stdout, 'out1 out2');
    assert.equal(r.stderr, 'err');
  });

  it('handles frames split at every byte, headers included', () => {
    const whole = Buffer.concat([frame(1, 'hello'), frame(2, 'world'), frame(1, ''), frame(1, '!')]);
    const bytes = [...whole].map((b) => Buffer.from([b]));
    const r = parseAll(bytes);
    assert.equal(r.stdout, 'hello!');
    assert.equal(r.stderr, 'world');
  });

  it('keeps the payload size across chunks (a 100 kB frame in 3 pieces)', () => {
    const big = 'x'.repeat(100_000);
    const whole = Buffer.concat([frame(2, big), frame(1, 'after')]);
    const r = parseAll([whole.subarray(0, 5), whole.subarray(5, 60_000), whole.subarray(60_000)]);
    assert.equal(r.stderr, big);
    assert.equal(r.stdout, 'after');
  });

  it('rejects a stream that is not multiplexed (e.g. a TTY stream)', () => {
    const feed = createExecStreamParser(() => {});
    assert.throws(() => feed(Buffer.from('plain text output\n')), /malformed Docker exec stream/);
  });
});
