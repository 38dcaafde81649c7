import type { OutputStream } from '../output-capture.ts';

const HEADER_BYTES = 8;

/**
 * A parser of Docker's multiplexed attach stream (no TTY): frames of an 8-byte header — stream type
 * (0 stdin, 1 stdout, 2 stderr), three zero bytes, payload size as big-endian uint32 — then the payload.
 * Returns a function to feed raw chunks as they arrive; frames may be split anywhere across chunks.
 * Payloads are handed over as slices of the input, without copying.
 */
export function createExecStreamParser(
  onFrame: (stream: OutputStream, payload: Buffer) => void,
): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let stream: OutputStream | undefined;
  let remaining = 0;

  return (chunk: Buffer) => {
    let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    pending = Buffer.alloc(0);
    while (data.length > 0) {
      if (remaining > 0 && stream) {
        const take = Math.min(remaining, data.length);
        onFrame(stream, data.subarray(0, take));
        remaining -= take;
        data = data.subarray(take);
        continue;
      }
      if (data.length < HEADER_BYTES) {
        pending = Buffer.from(data);
        return;
      }
      const type = data[0]!;
      if (type > 2 || data[1] !== 0 || data[2] !== 0 || data[3] !== 0) {
        throw new Error(
          `malformed Docker exec stream: frame header ${data.subarray(0, HEADER_BYTES).toString('hex')}`,
        );
      }
      // Type 0 (stdin echoed back) only appears with a TTY; treat it as stdout rather than lose it.
      stream = type === 2 ? 'stderr' : 'stdout';
      remaining = data.readUInt32BE(4);
      data = data.subarray(HEADER_BYTES);
    }
  };
}
