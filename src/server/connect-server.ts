import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ENVELOPE_END_STREAM,
  EnvelopeDecoder,
  encodeJsonEnvelope,
  parseEnvelopeJson,
  RpcError,
} from '../sandbox/e2b/index.ts';
import { headerValue, readRequestBody } from './http-io.ts';

/**
 * The server side of Connect RPC (connectrpc.com/docs/protocol) for envd's services, JSON codec only:
 * unary calls are `application/json` bodies; server-streaming calls take one enveloped request and
 * answer `application/connect+json` envelopes, the last one the end-of-stream message.
 */
export async function readUnaryRequest(
  req: IncomingMessage,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  checkContentType(req, 'application/json');
  const encoding = headerValue(req, 'content-encoding');
  if (encoding !== undefined && encoding !== 'identity') {
    throw new RpcError('unimplemented', `Content-Encoding "${encoding}" is not supported; send identity`);
  }
  return parseObject(await readRequestBody(req, maxBytes));
}

/** The single request message of a server-streaming call. */
export async function readStreamRequest(
  req: IncomingMessage,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  checkContentType(req, 'application/connect+json');
  const encoding = headerValue(req, 'connect-content-encoding');
  if (encoding !== undefined && encoding !== 'identity') {
    throw new RpcError(
      'unimplemented',
      `Connect-Content-Encoding "${encoding}" is not supported; send identity`,
    );
  }
  const decoder = new EnvelopeDecoder(maxBytes);
  const envelopes = decoder.push(await readRequestBody(req, maxBytes + 5));
  decoder.finish();
  if (envelopes.length !== 1 || envelopes[0]!.flags !== 0) {
    throw new RpcError(
      'invalid_argument',
      `malformed Connect request: a server-streaming call takes exactly one message envelope, got ${envelopes.length}`,
    );
  }
  const json = parseEnvelopeJson(envelopes[0]!);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new RpcError('invalid_argument', 'malformed Connect request: the message must be a JSON object');
  }
  return json as Record<string, unknown>;
}

/** Connect-Timeout-Ms: the call's deadline in ms, at most 10 digits; undefined when absent. */
export function requestDeadlineMs(req: IncomingMessage): number | undefined {
  const value = headerValue(req, 'connect-timeout-ms');
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value)) {
    throw new RpcError('invalid_argument', `Connect-Timeout-Ms must be 1 to 10 digits, got "${value}"`);
  }
  return Number(value);
}

export function sendUnary(res: ServerResponse, message: unknown): void {
  const body = Buffer.from(JSON.stringify(message));
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
  res.end(body);
}

/** A unary error, or a streaming call's error before its stream began: the code's status and JSON body. */
export function sendRpcError(res: ServerResponse, error: RpcError, status = error.httpStatus): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(JSON.stringify(error.toJSON()));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
  res.end(body);
}

/**
 * A server-streaming call's error: Connect sends it as the end-of-stream message of a 200 response (an
 * HTTP error status would reach the client as a bare "HTTP 4xx", without the code and message).
 */
export function sendStreamError(res: ServerResponse, error: RpcError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  new ServerStream(res).end(undefined, error);
}

/** True for a request in one of Connect's streaming content types. */
export function isStreamingRequest(req: IncomingMessage): boolean {
  return (headerValue(req, 'content-type') ?? '').toLowerCase().startsWith('application/connect+');
}

/**
 * Buffered bytes past which messages are written at once. Below it, the messages queued in one turn of
 * the event loop leave in one write, which saves syscalls and wake-ups on both ends without delaying
 * anything past the turn. (Holding them 10 ms longer, so that a short command's start, output and end
 * would share a write, saved nothing measurable in bench:serve.)
 */
const COALESCE_BYTES = 64 * 1024;

/** The response side of a server-streaming call. */
export class ServerStream {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushScheduled: NodeJS.Immediate | undefined;

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'Content-Type': 'application/connect+json' });
  }

  /** False once the client has gone. */
  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  /** Queues one message; false when the client's buffer is full (wait for `drained()`). */
  send(message: unknown): boolean {
    if (!this.open) return true;
    const envelope = encodeJsonEnvelope(message);
    this.pending.push(envelope);
    this.pendingBytes += envelope.length;
    if (this.pendingBytes >= COALESCE_BYTES) return this.flush();
    this.flushScheduled ??= setImmediate(() => this.flush());
    return !this.res.writableNeedDrain;
  }

  private flush(): boolean {
    clearImmediate(this.flushScheduled);
    this.flushScheduled = undefined;
    if (this.pending.length === 0 || !this.open) return !this.res.writableNeedDrain;
    const chunk = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return this.res.write(chunk);
  }

  drained(): Promise<void> {
    if (!this.open || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /** Sends what is queued, `last` (if any) and the end-of-stream message carrying `error`, in one write. */
  end(last: unknown, error?: RpcError): void {
    clearImmediate(this.flushScheduled);
    if (!this.open) return;
    if (last !== undefined) this.pending.push(encodeJsonEnvelope(last));
    this.pending.push(encodeJsonEnvelope(error ? { error: error.toJSON() } : {}, ENVELOPE_END_STREAM));
    this.res.end(Buffer.concat(this.pending));
    this.pending = [];
  }
}

function checkContentType(req: IncomingMessage, expected: string): void {
  const type = (headerValue(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== expected) {
    throw new UnsupportedMediaType(
      `content type "${type || '(none)'}" is not supported here: sandgym serve speaks Connect with the JSON ` +
        `codec (${expected})`,
    );
  }
}

/** A Connect request in a codec we do not speak; answered 415 as the protocol asks. */
export class UnsupportedMediaType extends RpcError {
  override name = 'UnsupportedMediaType';

  constructor(message: string) {
    super('invalid_argument', message);
  }

  override get httpStatus(): number {
    return 415;
  }
}

function parseObject(body: Buffer): Record<string, unknown> {
  let json: unknown;
  try {
    json = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new RpcError('invalid_argument', `malformed JSON request: ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new RpcError('invalid_argument', 'malformed request: the message must be a JSON object');
  }
  return json as Record<string, unknown>;
}
