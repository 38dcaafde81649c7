import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { ConfigError } from '../errors.ts';

/** Parts (files and fields) one body may hold; each costs a little parser state. */
const MAX_PARTS = 1000;

/**
 * Streams the `file` parts of a multipart/form-data body (RFC 7578) to `onFile`, one at a time and in
 * order, with busboy: no part is ever held whole in memory (a gzip bomb decoded into one buffer grew the
 * server by GiBs). Filenames stay as sent: the E2B SDK puts the whole destination path there. A malformed
 * body fails with a ConfigError; what `onFile` throws fails the whole body, and the rest is drained.
 */
export function forEachFilePart(
  contentType: string,
  body: Readable,
  onFile: (filename: string | undefined, data: Readable) => Promise<void>,
): Promise<void> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      preservePath: true,
      limits: { parts: MAX_PARTS, fieldSize: 64 * 1024 },
    });
  } catch (e) {
    return Promise.reject(new ConfigError(`malformed multipart/form-data: ${(e as Error).message}`));
  }
  return new Promise<void>((resolve, reject) => {
    let failed = false;
    let files = Promise.resolve();
    const open = new Set<Readable>();
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      body.unpipe(parser);
      body.resume();
      // A file being written hears of it (and removes what it wrote) instead of waiting for more data.
      for (const data of open) data.destroy(e instanceof Error ? e : new Error(String(e)));
      reject(e);
    };
    parser.on('file', (name, data, info) => {
      if (name !== 'file' || failed) {
        data.resume();
        return;
      }
      // Its error (a body cut short) reaches the handler through the stream, and the caller through the parser.
      data.on('error', () => {});
      open.add(data);
      data.once('close', () => open.delete(data));
      const filename = info.filename === undefined ? undefined : formDecode(info.filename);
      files = files.then(() => (failed ? void data.resume() : onFile(filename, data)));
      files.catch((e: unknown) => {
        data.resume();
        // A malformed body fails the part's stream first: let the parser's own error, which says more, win.
        setImmediate(() => fail(e));
      });
    });
    parser.on('partsLimit', () => fail(new ConfigError(`multipart body with more than ${MAX_PARTS} parts`)));
    parser.on('error', (e: Error) =>
      fail(new ConfigError(`malformed multipart/form-data body: ${e.message}`)),
    );
    parser.on('close', () => {
      files.then(() => {
        if (!failed) resolve();
      }, fail);
    });
    body.on('error', fail);
    body.pipe(parser);
  });
}

/** Browsers and undici percent-encode `"`, CR and LF in form filenames (HTML's form encoding); undone. */
function formDecode(filename: string): string {
  return filename.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
}
