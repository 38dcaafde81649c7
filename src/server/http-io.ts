import type { IncomingMessage, ServerResponse } from 'node:http';
import { SandgymError } from '../errors.ts';

/** An answer other than success, with the status that says so. Messages reach the client as written. */
export class HttpError extends SandgymError {
  override name = 'HttpError';

  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Reads a request body of at most `maxBytes`. A declared Content-Length over the limit is refused before
 * reading; a body that grows past it is refused when it does (413, connection closed). Read by events,
 * not `for await`: every command through the server reads one body, and the async iterator cost a
 * measurable part of a request's CPU.
 */
export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (error: Error | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) chunks.push(chunk);
      else {
        req.destroy();
        settle(tooLarge(maxBytes));
      }
    };
    const onEnd = () => settle(undefined);
    const onClose = () => settle(new HttpError(400, 'the client closed the request before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', settle);
    req.on('close', onClose);
  });
}

export function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `request body over the limit of ${maxBytes} bytes`, { Connection: 'close' });
}

/** A JSON object body; anything else is the client's error (400). An empty body is `{}`. */
export async function readJsonObject(
  req: IncomingMessage,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const body = await readRequestBody(req, maxBytes);
  if (body.length === 0) return {};
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new HttpError(400, `malformed JSON body: ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new HttpError(400, 'the JSON body must be an object');
  }
  return json as Record<string, unknown>;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': String(text.length),
  });
  res.end(text);
}

/** An error in E2B's shape (`{code, message}`, code = the HTTP status). */
export function sendError(res: ServerResponse, error: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, { code: error.status, message: error.message }, error.headers);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}

/** The one value of a header (the first when repeated). */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
