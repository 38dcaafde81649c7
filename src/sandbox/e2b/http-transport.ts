import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { InfrastructureError, SandgymError } from '../../errors.ts';
import { abortReason, Http1Client } from './http1-client.ts';

/**
 * The e2b client's HTTP. envd's RPC calls, one or more per command, go through `rpc`, a lean HTTP/1.1
 * client; the lifecycle API and file transfers through node:http(s) with keep-alive pools (cheaper per
 * call than fetch, and its bodies are Node streams). Every request has a deadline for its response
 * headers; bodies are read under their own deadlines by the callers.
 */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers: Record<string, string>;
  body?: Buffer | Readable;
  /** Deadline for the response headers to arrive. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export class HttpTransport {
  /** The lean client of envd's RPC calls (see http1-client.ts). */
  readonly rpc = new Http1Client();
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 512 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 512 }),
  };

  /**
   * Resolves with the response once its headers arrive; its body is the caller's to read or destroy.
   * A request sent on a pooled connection that the server closed at that moment (its keep-alive timeout)
   * fails with ECONNRESET before any answer; it is sent again on a fresh connection, as Node's
   * documentation advises (`reusedSocket`), when its body can be sent twice.
   */
  async request(req: HttpRequest): Promise<IncomingMessage> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send(req);
      } catch (e) {
        const stale = (e as { staleSocket?: boolean }).staleSocket === true;
        if (!stale || attempt >= 2 || req.body instanceof Readable) throw e;
      }
    }
  }

  private send(req: HttpRequest): Promise<IncomingMessage> {
    req.signal?.throwIfAborted();
    const protocol = req.url.protocol;
    if (protocol !== 'http:' && protocol !== 'https:') {
      return Promise.reject(new SandgymError(`unsupported URL ${req.url.href}: expected http: or https:`));
    }
    const send = protocol === 'http:' ? http.request : https.request;
    return new Promise((resolve, reject) => {
      const outgoing = send(req.url, {
        method: req.method,
        headers: req.headers,
        agent: this.agents[protocol],
      });
      // Not http's own `signal` option: that one can still destroy the pooled socket after the exchange
      // ended, when another request may be using it. Aborting here ends only this exchange.
      const signal = req.signal;
      const onAbort = () => outgoing.destroy(abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.once('close', () => signal?.removeEventListener('abort', onAbort));
      const timer = setTimeout(() => {
        outgoing.destroy(
          new SandgymError(
            `${req.method} ${req.url.origin}${req.url.pathname}: no response within ${req.timeoutMs} ms`,
            { isRetryable: true },
          ),
        );
      }, req.timeoutMs);
      outgoing.once('response', (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      outgoing.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (outgoing.reusedSocket && e.code === 'ECONNRESET' && !signal?.aborted) {
          Object.assign(e, { staleSocket: true });
        }
        reject(e);
      });
      outgoing.once('close', () => clearTimeout(timer));
      if (req.body instanceof Readable) {
        req.body.once('error', (e) => outgoing.destroy(e));
        req.body.pipe(outgoing);
      } else {
        outgoing.end(req.body);
      }
    });
  }

  close(): void {
    this.rpc.close();
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

/**
 * Reads the whole body of a response nobody has read yet (node:http's or the RPC client's), failing
 * past `maxBytes`, when it stalls for `idleMs`, or when the connection is cut before its end.
 */
export function readBody(res: ResponseBody, maxBytes: number, idleMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const timer = setTimeout(() => {
      res.destroy(new StreamIdleError(describeResponse(res), idleMs));
    }, idleMs);
    res.on('data', (chunk: Buffer) => {
      timer.refresh();
      total += chunk.length;
      if (total <= maxBytes) chunks.push(chunk);
      else if (!settled) {
        settle(new BodyTooLargeError(`response body over ${maxBytes} bytes from ${describeResponse(res)}`));
        res.destroy();
      }
    });
    res.on('end', () => settle(undefined));
    res.on('error', (e) => settle(e));
    res.on('close', () =>
      settle(
        new SandgymError(`${describeResponse(res)}: the connection closed before the body ended`, {
          isRetryable: true,
        }),
      ),
    );
  });
}

/**
 * The chunks of a response, failing when none arrives for `idleMs` while one is awaited. The clock runs
 * only while waiting on the network, so a slow consumer never trips it.
 */
export async function* withIdleDeadline(res: IncomingMessage, idleMs: number): AsyncGenerator<Buffer> {
  let waiting = false;
  const timer = setTimeout(() => {
    if (waiting) res.destroy(new StreamIdleError(describeResponse(res), idleMs));
  }, idleMs);
  try {
    const iterator = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      // One timer for the whole stream, restarted each time a read begins (even after it fired idle).
      timer.refresh();
      waiting = true;
      const step = await iterator.next();
      waiting = false;
      if (step.done) return;
      yield step.value;
    }
  } finally {
    clearTimeout(timer);
    if (!res.complete) res.destroy();
  }
}

/** A body longer than its reader's cap; nothing past the cap was kept. */
export class BodyTooLargeError extends SandgymError {
  override name = 'BodyTooLargeError';
}

/** A stream that went silent: no data and no keepalive for longer than the read deadline. */
export class StreamIdleError extends InfrastructureError {
  override name = 'StreamIdleError';

  constructor(what: string, idleMs: number) {
    super(
      `${what}: nothing received for ${idleMs} ms (no data, no keepalive); the connection or the sandbox is dead`,
      {
        isRetryable: true,
      },
    );
  }
}

/**
 * What a reader of a streamed body needs of a response: Node's IncomingMessage and the RPC client's
 * Http1Response both are one.
 */
export interface ResponseBody {
  readonly complete: boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end' | 'close', listener: () => void): this;
  on(event: 'error', listener: (e: Error) => void): this;
  pause(): this;
  resume(): this;
  isPaused(): boolean;
  destroy(error?: Error): this;
}

/** `METHOD host/path` of a response's request, for error messages. */
export function describeResponse(res: ResponseBody): string {
  if ('description' in res && typeof res.description === 'string') return res.description;
  const req = (res as IncomingMessage & { req?: { method?: string; path?: string; host?: string } }).req;
  return req ? `${req.method} ${req.host ?? ''}${req.path ?? ''}` : 'HTTP response';
}
