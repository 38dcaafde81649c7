import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.ts';

/** Reads a request body whole, up to `maxBytes`, and parses it as JSON (an empty body is `{}`). */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ json: unknown; text: string }> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { json: {}, text };
  try {
    return { json: JSON.parse(text), text };
  } catch (e) {
    throw new HttpError(400, `the request body is not valid JSON: ${(e as Error).message}`);
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `the request body exceeds ${maxBytes} bytes; send fewer data per request`);
}
