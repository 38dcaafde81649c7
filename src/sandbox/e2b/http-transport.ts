import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { SandgymError } from '../../errors.ts';

/**
 * The e2b client's HTTP: node:http(s) with keep-alive pools (cheaper per call than fetch, and streams
 * are Node streams). Every request has a deadline for its response headers; bodies are read under
 * their own deadlines by the callers.
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
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 512 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 512 }),
  };

  /** Resolves with the response once its headers arrive; its body is the caller's to read or destroy. */
  request(req: HttpRequest): Promise<IncomingMessage> {
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
        ...(req.signal && { signal: req.signal }),
      });
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
      outgoing.once('error', (e) => {
        clearTimeout(timer);
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
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

/** Reads a whole response body, failing past `maxBytes` or when it stalls for `idleMs`. */
export async function readBody(res: IncomingMessage, maxBytes: number, idleMs: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of withIdleDeadline(res, idleMs)) {
    total += chunk.length;
    if (total > maxBytes) {
      res.destroy();
      throw new SandgymError(`response body over ${maxBytes} bytes from ${describe(res)}`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The chunks of a response, failing when none arrives for `idleMs` while one is awaited. The clock runs
 * only while waiting on the network, so a slow consumer never trips it.
 */
export async function* withIdleDeadline(res: IncomingMessage, idleMs: number): AsyncGenerator<Buffer> {
  const iterator = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new StreamIdleError(describe(res), idleMs);
          res.destroy(error);
          reject(error);
        }, idleMs);
      });
      const next = iterator.next();
      // After a deadline the pending read rejects too; that rejection is already reported.
      next.catch(() => {});
      let step: IteratorResult<Buffer>;
      try {
        step = await Promise.race([next, idle]);
      } finally {
        clearTimeout(timer);
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    if (!res.complete) res.destroy();
  }
}

/** A stream that went silent: no data and no keepalive for longer than the read deadline. */
export class StreamIdleError extends SandgymError {
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

function describe(res: IncomingMessage): string {
  const req = (res as IncomingMessage & { req?: { method?: string; path?: string; host?: string } }).req;
  return req ? `${req.method} ${req.host ?? ''}${req.path ?? ''}` : 'HTTP response';
}
