import { constants } from 'node:buffer';
import { ConfigError } from '../errors.ts';

/**
 * How every provider cuts a command's output to `maxOutputBytes`, so the same command gives the same
 * observation on local, docker or e2b.
 *
 * The rule: stdout and stderr are kept separately but share one budget of `maxOutputBytes`. The first
 * half of the budget (rounded up) keeps the earliest bytes in arrival order (the head), the second half
 * the latest bytes (the tail). A stream that lost bytes in the middle gets `truncationMarker(n)` between
 * its head and its tail. Cuts fall on UTF-8 character boundaries; the bytes of a split character count as
 * dropped. Output beyond `floodLimitBytes(max)` means the command is flooding: the caller kills it and
 * appends `floodNotice(max)` to stderr.
 */
export type OutputStream = 'stdout' | 'stderr';

/**
 * The most output bytes kept as text, whatever the cap: V8 strings end at MAX_STRING_LENGTH UTF-16 units
 * (2^29 - 24 on 64-bit), and decoding N bytes of UTF-8 gives at most N units; the rest leaves room for
 * the markers. A larger `maxOutputBytes` keeps this much (head and tail) and reports truncation.
 */
export const MAX_TEXT_BYTES = constants.MAX_STRING_LENGTH - 4096;

/** Output beyond this multiple of the cap (and beyond FLOOD_FLOOR_BYTES) gets the command killed. */
export const FLOOD_FACTOR = 64;
/** Small caps still let a command write this much before it counts as flooding. */
export const FLOOD_FLOOR_BYTES = 8 * 1024 * 1024;

export function truncationMarker(droppedBytes: number): string {
  return `\n[… ${droppedBytes} bytes of output truncated …]\n`;
}

export function floodLimitBytes(maxOutputBytes: number): number {
  return Math.max(FLOOD_FACTOR * maxOutputBytes, FLOOD_FLOOR_BYTES);
}

export function floodNotice(maxOutputBytes: number): string {
  return (
    `\n[sandgym: the command wrote more than ${floodLimitBytes(maxOutputBytes)} bytes ` +
    `(${FLOOD_FACTOR}× the output cap of ${maxOutputBytes}, at least ${FLOOD_FLOOR_BYTES}) and was killed]\n`
  );
}

interface TailChunk {
  stream: OutputStream;
  bytes: Buffer;
}

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/** Accumulates one command's output under the rule above. */
export class OutputCapture {
  readonly maxOutputBytes: number;
  private readonly headBudget: number;
  private readonly tailBudget: number;
  private headUsed = 0;
  private readonly head: Record<OutputStream, Buffer[]> = { stdout: [], stderr: [] };
  private tail: TailChunk[] = [];
  private tailBytes = 0;
  private readonly seen: Record<OutputStream, number> = { stdout: 0, stderr: 0 };

  /** `textLimitBytes` is for tests: the real limit is MAX_TEXT_BYTES. */
  constructor(maxOutputBytes: number, textLimitBytes = MAX_TEXT_BYTES) {
    if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 0) {
      throw new ConfigError(`maxOutputBytes must be a non-negative integer, got ${maxOutputBytes}`);
    }
    this.maxOutputBytes = maxOutputBytes;
    const kept = Math.min(maxOutputBytes, textLimitBytes);
    this.headBudget = Math.ceil(kept / 2);
    this.tailBudget = kept - this.headBudget;
  }

  get totalBytes(): number {
    return this.seen.stdout + this.seen.stderr;
  }

  /** True once the command has written more than `floodLimitBytes`: the caller should kill it. */
  get flooded(): boolean {
    return this.totalBytes > floodLimitBytes(this.maxOutputBytes);
  }

  push(stream: OutputStream, chunk: Uint8Array): void {
    let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    this.seen[stream] += bytes.length;
    const toHead = Math.min(bytes.length, this.headBudget - this.headUsed);
    if (toHead > 0) {
      this.head[stream].push(bytes.subarray(0, toHead));
      this.headUsed += toHead;
      bytes = bytes.subarray(toHead);
    }
    if (bytes.length === 0 || this.tailBudget === 0) return;
    if (bytes.length >= this.tailBudget) {
      // Copy: the caller's chunk buffer may be reused, and a slice would pin a large buffer.
      this.tail = [{ stream, bytes: Buffer.from(bytes.subarray(bytes.length - this.tailBudget)) }];
      this.tailBytes = this.tailBudget;
      return;
    }
    this.tail.push({ stream, bytes: Buffer.from(bytes) });
    this.tailBytes += bytes.length;
    this.dropTailOverflow();
  }

  private dropTailOverflow(): void {
    let excess = this.tailBytes - this.tailBudget;
    let drop = 0;
    while (excess > 0) {
      const first = this.tail[drop]!;
      if (first.bytes.length <= excess) {
        excess -= first.bytes.length;
        this.tailBytes -= first.bytes.length;
        drop++;
      } else {
        first.bytes = first.bytes.subarray(excess);
        this.tailBytes -= excess;
        excess = 0;
      }
    }
    if (drop > 0) this.tail.splice(0, drop);
  }

  result(): CapturedOutput {
    const stdout = this.streamText('stdout');
    const stderr = this.streamText('stderr');
    return { stdout: stdout.text, stderr: stderr.text, truncated: stdout.truncated || stderr.truncated };
  }

  private streamText(stream: OutputStream): { text: string; truncated: boolean } {
    let head = Buffer.concat(this.head[stream]);
    let tail = Buffer.concat(this.tail.filter((c) => c.stream === stream).map((c) => c.bytes));
    if (head.length + tail.length === this.seen[stream]) {
      return { text: Buffer.concat([head, tail]).toString('utf8'), truncated: false };
    }
    head = head.subarray(0, completeUtf8Prefix(head));
    tail = tail.subarray(firstUtf8Boundary(tail));
    const dropped = this.seen[stream] - head.length - tail.length;
    return {
      text: head.toString('utf8') + truncationMarker(dropped) + tail.toString('utf8'),
      truncated: true,
    };
  }
}

/** Length of the longest prefix of `b` that does not end inside a multi-byte UTF-8 character. */
export function completeUtf8Prefix(b: Uint8Array): number {
  // Walk back over at most 3 continuation bytes to the lead byte of the last character.
  let i = b.length - 1;
  while (i >= 0 && b.length - i <= 4 && (b[i]! & 0xc0) === 0x80) i--;
  if (i < 0 || b.length - i > 4) return b.length;
  const lead = b[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return b.length - i >= need ? b.length : i;
}

/** Index of the first byte of `b` that starts a UTF-8 character (skips at most 3 continuation bytes). */
export function firstUtf8Boundary(b: Uint8Array): number {
  let i = 0;
  while (i < b.length && i < 3 && (b[i]! & 0xc0) === 0x80) i++;
  return i;
}
