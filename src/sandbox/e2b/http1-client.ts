import { EventEmitter } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import { SandgymError } from '../../errors.ts';

/**
 * A lean HTTP/1.1 client for envd's RPC calls (Connect unary and server-streaming): a Buffer body out,
 * the response's bytes in, over kept-alive connections. Every command of the e2b provider is one such
 * call, and Node's `http` client with its stream layers was half of the client's CPU per command:
 * against sandgym serve at 16 concurrent commands, this client took it from 0.66 to 0.43 ms (A/B in one
 * run). Bulk transfers (/files) and the lifecycle API keep using `http`, where per-call cost does not
 * matter.
 *
 * What it speaks: one request at a time per connection (no pipelining); responses framed by
 * Content-Length, chunked transfer coding (extensions and trailers skipped) or the connection's end;
 * 1xx interim responses skipped; `http:` and `https:` (TLS with SNI).
 */

/** Largest response head (status line and headers). */
const MAX_HEAD_BYTES = 64 * 1024;
/** Longest chunk-size line (with extensions) or trailer section. */
const MAX_LINE_BYTES = 8 * 1024;
/**
 * How long a connection may wait idle for reuse: under the 5 s keep-alive of Node servers (sandgym
 * serve's among them), so that a request is not written into a connection the server is closing.
 * A server's `Keep-Alive: timeout=N` lowers it to N-1 s.
 */
const DEFAULT_IDLE_MS = 4000;

export interface Http1Request {
  method: 'GET' | 'POST';
  /** The server: protocol, host and port are used. */
  origin: URL;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Deadline for the response head to arrive. */
  timeoutMs: number;
  /** Aborts the whole exchange: the wait for the head, and the body after it. */
  signal?: AbortSignal | undefined;
}

/**
 * A response whose head has arrived. Its body arrives as 'data' events, from the turn in which the first
 * 'data' listener is added (bytes that came with the head wait for it), none while paused, then 'end';
 * 'error' and 'close' report a cut; `complete` is true once the whole body is in. `destroy()` drops the
 * exchange (and its connection) unless it is complete.
 */
export class Http1Response extends EventEmitter {
  statusCode = 0;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string> = {};
  complete = false;
  private paused = false;

  constructor(
    private exchange: Exchange | undefined,
    /** `METHOD host/path`, for error messages. */
    readonly description: string,
  ) {
    super();
    this.once('newListener', function first(this: Http1Response, event: string | symbol) {
      if (event !== 'data') return void this.once('newListener', first);
      // The next tick: the reader adds its 'end' and 'error' listeners in the same turn as 'data'.
      process.nextTick(() => this.exchange?.flow());
    });
  }

  pause(): this {
    this.paused = true;
    this.exchange?.socket.pause();
    return this;
  }

  resume(): this {
    this.paused = false;
    this.exchange?.flow();
    return this;
  }

  isPaused(): boolean {
    return this.paused;
  }

  destroy(error?: Error): this {
    if (!this.complete) this.exchange?.fail(error ?? new SandgymError(`${this.description}: aborted`));
    return this;
  }

  /** @internal The body is done or cut: the response lets go of its connection. */
  detach(): void {
    this.exchange = undefined;
  }
}

export class Http1Client {
  /** Idle connections per origin, the most recently used last. */
  private readonly idle = new Map<string, Connection[]>();
  private closed = false;

  /** `tlsOptions` go to every TLS connection (a private CA's certificate, say). */
  constructor(private readonly tlsOptions: tls.ConnectionOptions = {}) {}

  /** Resolves once the response head arrives; its body is the caller's to read or destroy. */
  request(r: Http1Request): Promise<Http1Response> {
    r.signal?.throwIfAborted();
    if (r.origin.protocol !== 'http:' && r.origin.protocol !== 'https:') {
      return Promise.reject(new SandgymError(`unsupported URL ${r.origin.href}: expected http: or https:`));
    }
    let head: Buffer;
    try {
      head = requestHead(r);
    } catch (e) {
      return Promise.reject(e);
    }
    const key = r.origin.origin;
    const connection =
      this.takeIdle(key) ?? new Connection(r.origin, this.tlsOptions, (c) => this.release(key, c));
    return new Exchange(connection, r, head).started;
  }

  /** Closes the idle connections; those in use close when their exchange ends. */
  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) for (const c of [...list]) c.close();
    this.idle.clear();
  }

  private takeIdle(key: string): Connection | undefined {
    const list = this.idle.get(key);
    while (list && list.length > 0) {
      const c = list.pop()!;
      if (c.reusable) {
        c.leaveIdle();
        return c;
      }
    }
    return undefined;
  }

  private release(key: string, c: Connection): void {
    if (this.closed || !c.reusable) {
      c.close();
      return;
    }
    const list = this.idle.get(key) ?? [];
    this.idle.set(key, list);
    list.push(c);
    c.enterIdle(() => {
      const at = list.indexOf(c);
      if (at >= 0) list.splice(at, 1);
    });
  }
}

/** The request's head, validated: a header value with a line break would inject headers. */
function requestHead(r: Http1Request): Buffer {
  let head = `${r.method} ${r.path} HTTP/1.1\r\nHost: ${r.origin.host}\r\n`;
  for (const [name, value] of Object.entries(r.headers)) {
    if (!/^[!#$%&'*+.^`|~\w-]+$/.test(name) || /[\r\n\0]/.test(value)) {
      throw new SandgymError(`invalid HTTP header ${JSON.stringify(name)}: ${JSON.stringify(value)}`);
    }
    head += `${name}: ${value}\r\n`;
  }
  if (r.body !== undefined || r.method === 'POST') head += `Content-Length: ${r.body?.length ?? 0}\r\n`;
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/** One kept-alive socket; it carries one exchange at a time. */
class Connection {
  readonly socket: net.Socket;
  /** The exchange in progress; none while idle. */
  exchange: Exchange | undefined;
  /** False once the socket ended, failed, or a response said not to reuse it. */
  reusable = true;
  idleMs = DEFAULT_IDLE_MS;
  private idleTimer: NodeJS.Timeout | undefined;
  private onIdleEnd: (() => void) | undefined;

  constructor(
    origin: URL,
    tlsOptions: tls.ConnectionOptions,
    readonly release: (c: Connection) => void,
  ) {
    const host = origin.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
    this.socket =
      origin.protocol === 'https:'
        ? tls.connect({
            ...tlsOptions,
            host,
            port,
            ...(net.isIP(host) === 0 && { servername: host }),
            ALPNProtocols: ['http/1.1'],
          })
        : net.connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => {
      if (this.exchange) this.exchange.onData(chunk);
      else this.close(); // bytes nobody asked for: the connection is out of step
    });
    this.socket.on('end', () => this.lost(undefined, true));
    this.socket.on('error', (e) => this.lost(e, false));
    this.socket.on('close', () => this.lost(undefined, false));
  }

  enterIdle(removeFromPool: () => void): void {
    this.onIdleEnd = removeFromPool;
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    this.idleTimer.unref();
    this.socket.unref();
  }

  leaveIdle(): void {
    clearTimeout(this.idleTimer);
    this.onIdleEnd = undefined;
    this.socket.ref();
  }

  /**
   * Closes it for good, out of the pool at once: a destroyed socket only says 'close' a turn later, and
   * a call in between must not be handed it.
   */
  close(): void {
    this.lost(undefined, false);
  }

  private lost(error: Error | undefined, ended: boolean): void {
    this.reusable = false;
    if (this.exchange) this.exchange.onSocketGone(error, ended);
    else {
      clearTimeout(this.idleTimer);
      this.onIdleEnd?.();
      this.onIdleEnd = undefined;
    }
    if (!ended) this.socket.destroy();
  }
}

type BodyState =
  | 'head'
  | 'length'
  | 'chunk-size'
  | 'chunk-data'
  | 'chunk-crlf'
  | 'trailers'
  | 'until-close'
  | 'done';

/** One request and its response on a connection: writes the request, parses the response. */
class Exchange {
  readonly started: Promise<Http1Response>;
  readonly socket: net.Socket;
  private resolveStarted!: (res: Http1Response) => void;
  private rejectStarted!: (e: Error) => void;
  private response: Http1Response | undefined;
  private state: BodyState = 'head';
  /** Unparsed bytes of a head, chunk-size line or trailer section split across reads. */
  private partial: Buffer | undefined;
  /** Bytes left in a Content-Length body or the current chunk. */
  private remaining = 0;
  private keepAlive = false;
  private over = false;
  /** Whether the body is delivered: from the turn the reader listens (see Http1Response). */
  private flowing = false;
  /** Bytes read past the head before the reader listened, and a failure that came meanwhile. */
  private held: Buffer | undefined;
  private heldFailure: Error | undefined;
  private readonly headTimer: NodeJS.Timeout;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly request: Http1Request,
    head: Buffer,
  ) {
    this.socket = connection.socket;
    connection.exchange = this;
    this.started = new Promise((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.headTimer = setTimeout(() => {
      this.fail(
        new SandgymError(`${this.description}: no response within ${request.timeoutMs} ms`, {
          isRetryable: true,
        }),
      );
    }, request.timeoutMs);
    const signal = request.signal;
    if (signal) {
      this.onAbort = () => this.fail(abortReason(signal));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    this.socket.cork();
    this.socket.write(head);
    if (request.body && request.body.length > 0) this.socket.write(request.body);
    this.socket.uncork();
  }

  get description(): string {
    return `${this.request.method} ${this.request.origin.host}${this.request.path}`;
  }

  onData(bytes: Buffer): void {
    // Bytes held back go first (a socket may still deliver what it had read when it was paused).
    const chunk = this.held ? Buffer.concat([this.held, bytes]) : bytes;
    this.held = undefined;
    let at = 0;
    try {
      while (at < chunk.length && !this.over && this.deliverable()) at = this.step(chunk, at);
      if (at < chunk.length && this.over) {
        // Bytes past the response's end: the connection is out of step and must not carry another call.
        this.connection.close();
        return;
      }
      if (at < chunk.length) {
        this.held = chunk.subarray(at);
        this.socket.pause();
      }
    } catch (e) {
      if (!(e instanceof MalformedResponse)) throw e;
      this.fail(new SandgymError(`${this.description}: malformed HTTP response: ${e.message}`));
    }
  }

  /** Parses from `at` in the state the exchange is in; returns where it stopped. */
  private step(chunk: Buffer, at: number): number {
    switch (this.state) {
      case 'head':
        return this.readHead(chunk, at);
      case 'length':
      case 'chunk-data': {
        const end = Math.min(chunk.length, at + this.remaining);
        this.remaining -= end - at;
        this.emitData(chunk.subarray(at, end));
        if (this.remaining === 0) {
          if (this.state === 'length') this.finish();
          else this.state = 'chunk-crlf';
        }
        return end;
      }
      case 'chunk-crlf': {
        const line = this.readLine(chunk, at, MAX_LINE_BYTES);
        if (!line) return chunk.length;
        if (line.text !== '') throw new MalformedResponse('a chunk is longer than its size');
        this.state = 'chunk-size';
        return line.next;
      }
      case 'chunk-size': {
        const line = this.readLine(chunk, at, MAX_LINE_BYTES);
        if (!line) return chunk.length;
        const size = line.text.split(';')[0]!.trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(size))
          throw new MalformedResponse(`bad chunk size "${line.text.slice(0, 40)}"`);
        this.remaining = Number.parseInt(size, 16);
        this.state = this.remaining === 0 ? 'trailers' : 'chunk-data';
        return line.next;
      }
      case 'trailers': {
        const line = this.readLine(chunk, at, MAX_LINE_BYTES);
        if (!line) return chunk.length;
        if (line.text === '') this.finish();
        return line.next;
      }
      case 'until-close':
        this.emitData(chunk.subarray(at));
        return chunk.length;
      case 'done':
        throw new MalformedResponse('bytes past the end of the response');
    }
  }

  /** One CRLF-terminated line from `partial` + `chunk[at..]`, or undefined (kept) when it is not all in. */
  private readLine(chunk: Buffer, at: number, max: number): { text: string; next: number } | undefined {
    const end = chunk.indexOf('\n', at);
    if (end < 0) {
      this.keep(chunk.subarray(at), max);
      return undefined;
    }
    let bytes = chunk.subarray(at, end + 1);
    if (this.partial) {
      bytes = Buffer.concat([this.partial, bytes]);
      this.partial = undefined;
    }
    if (bytes.length > max) throw new MalformedResponse(`a line over ${max} bytes`);
    return { text: bytes.toString('latin1').replace(/\r?\n$/, ''), next: end + 1 };
  }

  private keep(bytes: Buffer, max: number): void {
    this.partial = this.partial ? Buffer.concat([this.partial, bytes]) : Buffer.from(bytes);
    if (this.partial.length > max) throw new MalformedResponse(`a head or line over ${max} bytes`);
  }

  private readHead(chunk: Buffer, at: number): number {
    let bytes = chunk.subarray(at);
    let offset = 0;
    if (this.partial) {
      offset = this.partial.length;
      bytes = Buffer.concat([this.partial, bytes]);
      this.partial = undefined;
    }
    // The search restarts 3 bytes before the new bytes, so a CRLFCRLF split across reads is found.
    const end = bytes.indexOf('\r\n\r\n', Math.max(0, offset - 3));
    if (end < 0) {
      this.keep(bytes, MAX_HEAD_BYTES);
      return chunk.length;
    }
    if (end > MAX_HEAD_BYTES) throw new MalformedResponse(`a head over ${MAX_HEAD_BYTES} bytes`);
    const lines = bytes.subarray(0, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!status) throw new MalformedResponse(`bad status line "${lines[0]!.slice(0, 60)}"`);
    const next = at + (end + 4 - offset);
    const code = Number(status[2]);
    if (code >= 100 && code < 200) return next; // an interim response: the real one follows
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0 || /^[ \t]/.test(line))
        throw new MalformedResponse(`bad header line "${line.slice(0, 60)}"`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    this.onHead(code, status[1] === '1', headers);
    return next;
  }

  private onHead(code: number, http11: boolean, headers: Record<string, string>): void {
    const coding = headers['transfer-encoding'];
    const length = headers['content-length'];
    if (code === 204 || code === 304) this.state = 'done';
    else if (coding !== undefined) {
      this.state = /(?:^|,)\s*chunked\s*$/i.test(coding) ? 'chunk-size' : 'until-close';
    } else if (length !== undefined) {
      if (!/^\d{1,15}$/.test(length))
        throw new MalformedResponse(`bad Content-Length "${length.slice(0, 40)}"`);
      this.remaining = Number(length);
      this.state = this.remaining === 0 ? 'done' : 'length';
    } else this.state = 'until-close';
    const connection = (headers.connection ?? '').toLowerCase();
    this.keepAlive = http11 && !connection.includes('close') && this.state !== 'until-close';
    const timeout = /timeout=(\d+)/i.exec(headers['keep-alive'] ?? '');
    if (timeout) this.connection.idleMs = Math.min(DEFAULT_IDLE_MS, Number(timeout[1]) * 1000 - 1000);
    clearTimeout(this.headTimer);
    const response = new Http1Response(this, this.description);
    response.statusCode = code;
    response.headers = headers;
    this.response = response;
    this.resolveStarted(response);
  }

  /** Whether parsed body bytes may be told now: the reader listens and has not paused. */
  private deliverable(): boolean {
    return !this.response || (this.flowing && !this.response.isPaused());
  }

  /**
   * The reader listens, or resumed: the bytes held back are delivered, then the socket's as they come.
   * A pause while they are delivered holds the rest back again.
   */
  flow(): void {
    if (!this.response || this.over) return;
    this.flowing = true;
    if (this.heldFailure) {
      this.fail(this.heldFailure);
      return;
    }
    if (this.response.isPaused()) return;
    const held = this.held;
    this.held = undefined;
    if (held) this.onData(held);
    if (this.state === 'done' && !this.over) this.finish();
    if (!this.over && this.deliverable()) this.socket.resume();
  }

  private emitData(bytes: Buffer): void {
    if (bytes.length > 0) this.response!.emit('data', bytes);
  }

  /** The whole response is in: the connection goes back to the pool (or closes), then 'end' is told. */
  private finish(): void {
    this.state = 'done';
    this.over = true;
    this.settle();
    const response = this.response!;
    response.complete = true;
    response.detach();
    if (!this.keepAlive) this.connection.reusable = false;
    this.socket.resume();
    this.connection.exchange = undefined;
    this.connection.release(this.connection);
    response.emit('end');
    response.emit('close');
  }

  /** The socket ended or failed: the end of an until-close body, or a cut. */
  onSocketGone(error: Error | undefined, ended: boolean): void {
    if (this.over) return;
    if (ended && this.state === 'until-close') {
      this.finish();
      return;
    }
    const what = this.response ? 'in the middle of the response' : 'before the response';
    this.fail(
      new SandgymError(
        `${this.description}: the connection ${error ? `failed (${error.message})` : 'closed'} ${what}`,
        { isRetryable: true, cause: error },
      ),
    );
  }

  /** Ends the exchange with `error`; its connection is not reused. */
  fail(error: Error): void {
    if (this.over) return;
    if (this.response && !this.flowing) {
      // The reader is told once it listens; for the connection the exchange is over now.
      this.heldFailure ??= error;
      this.settle();
      this.connection.reusable = false;
      this.socket.destroy();
      return;
    }
    this.over = true;
    this.settle();
    this.connection.reusable = false;
    this.connection.exchange = undefined;
    this.socket.destroy();
    const response = this.response;
    if (!response) {
      this.rejectStarted(error);
      return;
    }
    response.detach();
    if (response.listenerCount('error') > 0) response.emit('error', error);
    response.emit('close');
  }

  private settle(): void {
    clearTimeout(this.headTimer);
    if (this.onAbort) this.request.signal!.removeEventListener('abort', this.onAbort);
  }
}

/** A response that breaks HTTP/1.1 framing; the exchange fails with it. */
class MalformedResponse extends Error {}

/** The error an aborted call fails with: the signal's reason when it is an Error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new SandgymError(`aborted: ${String(signal.reason)}`);
}
