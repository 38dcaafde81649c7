import { RpcError } from './rpc-error.ts';

/**
 * Connect streaming envelopes (connectrpc.com/docs/protocol#streaming-rpcs): every message of a
 * streaming call is one flags byte, a 4-byte big-endian length and the payload. Flag 0x01 marks a
 * compressed payload, 0x02 the end-of-stream message that carries the call's error and trailers.
 */
export const ENVELOPE_COMPRESSED = 0x01;
export const ENVELOPE_END_STREAM = 0x02;
const HEADER_BYTES = 5;

export interface Envelope {
  flags: number;
  data: Buffer;
}

export function encodeEnvelope(data: Uint8Array, flags = 0): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + data.length);
  out[0] = flags;
  out.writeUInt32BE(data.length, 1);
  out.set(data, HEADER_BYTES);
  return out;
}

export function encodeJsonEnvelope(message: unknown, flags = 0): Buffer {
  return encodeEnvelope(Buffer.from(JSON.stringify(message)), flags);
}

/**
 * Cuts a byte stream into envelopes as its chunks arrive. Nothing was negotiated for compression, so a
 * compressed envelope is an error, as are unknown flag bits and messages over `maxMessageBytes`.
 */
export class EnvelopeDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxMessageBytes: number) {}

  push(chunk: Buffer): Envelope[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const out: Envelope[] = [];
    for (;;) {
      if (this.pendingBytes < HEADER_BYTES) return out;
      const buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
      const flags = buffer[0]!;
      const length = buffer.readUInt32BE(1);
      checkHeader(flags, length, this.maxMessageBytes);
      if (buffer.length < HEADER_BYTES + length) {
        this.pending = [buffer];
        return out;
      }
      out.push({ flags, data: buffer.subarray(HEADER_BYTES, HEADER_BYTES + length) });
      const rest = buffer.subarray(HEADER_BYTES + length);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
    }
  }

  /** Throws when the stream ended in the middle of an envelope. */
  finish(): void {
    if (this.pendingBytes > 0) {
      throw new RpcError(
        'invalid_argument',
        `malformed Connect stream: it ended inside an envelope (${this.pendingBytes} bytes left over)`,
      );
    }
  }
}

function checkHeader(flags: number, length: number, maxMessageBytes: number): void {
  if ((flags & ENVELOPE_COMPRESSED) !== 0) {
    throw new RpcError(
      'invalid_argument',
      'malformed Connect envelope: compressed message, but no Connect-Content-Encoding was negotiated',
    );
  }
  if ((flags & ~(ENVELOPE_COMPRESSED | ENVELOPE_END_STREAM)) !== 0) {
    throw new RpcError(
      'invalid_argument',
      `malformed Connect envelope: unknown flags 0x${flags.toString(16)}`,
    );
  }
  if (length > maxMessageBytes) {
    throw new RpcError(
      'resource_exhausted',
      `Connect message of ${length} bytes is over the limit of ${maxMessageBytes} bytes`,
    );
  }
}

/** Parses an envelope's JSON payload; malformed JSON is the sender's error. */
export function parseEnvelopeJson(envelope: Envelope): unknown {
  try {
    return JSON.parse(envelope.data.toString('utf8'));
  } catch (e) {
    throw new RpcError('invalid_argument', `malformed JSON in a Connect message: ${(e as Error).message}`);
  }
}
