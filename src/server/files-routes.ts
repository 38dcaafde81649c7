import type { IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { isConfigError } from '../errors.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { HttpError, headerValue, sendJson, tooLarge } from './http-io.ts';
import { forEachFilePart } from './multipart-files.ts';
import { resolveSandboxPath } from './sandbox-paths.ts';

/**
 * envd's REST `/files`: GET streams a file out, POST writes files (raw `application/octet-stream` with a
 * `path`, or `multipart/form-data` whose `file` parts are named by `path` or their filename), creating
 * parent directories and overwriting. Both run as commands inside the sandbox, so paths resolve in its
 * own filesystem only. Bodies may be gzip-encoded; their decoded size is capped.
 */
const READ_SCRIPT = '[ -e "$1" ] || exit 2; [ -d "$1" ] && exit 3; exec cat -- "$1"';
const WRITE_SCRIPT =
  '[ -d "$1" ] && exit 3; mkdir -p -- "$(dirname -- "$1")" || exit 4; cat > "$1" || exit 5';
const TRANSFER_TIMEOUT_MS = 30 * 60_000;
/** Room for the part headers and boundaries of a multipart body beyond its files' bytes. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export async function getFile(
  sandbox: Sandbox,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const path = pathParam(url.searchParams.get('path'));
  const proc = await sandbox.spawn(['/bin/sh', '-c', READ_SCRIPT, 'sh', path], { cwd: '/' });
  proc.stdin.end();
  res.once('close', () => {
    if (!res.writableFinished) proc.kill('SIGKILL');
  });
  let stderr = '';
  proc.stderr.on('data', (b: Buffer) => {
    if (stderr.length < 4096) stderr += b.toString();
  });
  const first = await firstChunk(proc.stdout);
  if (first === undefined) {
    const { exitCode } = await proc.exited;
    if (exitCode === 2) throw new HttpError(404, `path '${path}' does not exist`);
    if (exitCode === 3) throw new HttpError(400, `path '${path}' is a directory`);
    if (exitCode !== 0)
      throw new HttpError(500, `cannot read '${path}': ${stderr.trim() || `exit ${exitCode}`}`);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '0' });
    res.end();
    return;
  }
  const gzip = acceptsGzip(headerValue(req, 'accept-encoding'));
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    Vary: 'Accept-Encoding',
    ...(gzip && { 'Content-Encoding': 'gzip' }),
  });
  proc.stdout.unshift(first);
  await pipeline(gzip ? [proc.stdout, createGzip(), res] : [proc.stdout, res]);
  // A read that failed half-way cannot change the status any more: cut the body so the client sees it.
  if ((await proc.exited).exitCode !== 0) res.destroy();
}

export async function postFiles(
  sandbox: Sandbox,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  maxUploadBytes: number,
): Promise<void> {
  const type = headerValue(req, 'content-type') ?? '';
  const media = type.split(';')[0]!.trim().toLowerCase();
  const queryPath = url.searchParams.get('path');
  const body = decodedBody(req);
  const written: { path: string; name: string; type: 'file' }[] = [];
  if (media === 'application/octet-stream') {
    if (queryPath === null) throw new HttpError(400, 'path query parameter is required for raw body upload');
    const path = pathParam(queryPath);
    await writeFile(sandbox, path, body, maxUploadBytes);
    written.push(entryOf(path));
  } else if (media === 'multipart/form-data') {
    // The decoded body as a whole is capped too: its parts' headers are not file bytes.
    const limited = body.pipe(new ByteLimit(maxUploadBytes + MULTIPART_OVERHEAD_BYTES));
    body.on('error', (e) => limited.destroy(e));
    await clientError(() =>
      forEachFilePart(type, limited, async (filename, data) => {
        const path = pathParam(queryPath ?? filename ?? null);
        if (written.some((w) => w.path === path)) {
          throw new HttpError(
            400,
            `you cannot upload multiple files to the same path '${path}' in one request`,
          );
        }
        await writeFile(sandbox, path, data, maxUploadBytes);
        written.push(entryOf(path));
      }),
    );
  } else {
    throw new HttpError(
      400,
      `unsupported content type "${media || '(none)'}": expected multipart/form-data or application/octet-stream`,
    );
  }
  sendJson(res, 200, written);
}

async function writeFile(sandbox: Sandbox, path: string, source: Readable, maxBytes: number): Promise<void> {
  const controller = new AbortController();
  const limited = new ByteLimit(maxBytes);
  limited.on('error', (e) => controller.abort(e));
  // A body cut short (over its total cap, a broken gzip stream) must not leave half a file written.
  source.once('error', (e) => controller.abort(e));
  const feeding = pipeline(source, limited).catch(() => {});
  let r: Awaited<ReturnType<Sandbox['exec']>>;
  try {
    r = await sandbox.exec(['/bin/sh', '-c', WRITE_SCRIPT, 'sh', path], {
      stdin: limited,
      timeoutMs: TRANSFER_TIMEOUT_MS,
      signal: controller.signal,
      cwd: '/',
    });
  } catch (e) {
    if (!controller.signal.aborted) throw e;
    await sandbox.exec(['rm', '-f', '--', path], { timeoutMs: 60_000 }).catch(() => {});
    throw controller.signal.reason;
  }
  await feeding;
  if (r.exitCode === 3) throw new HttpError(400, `path '${path}' is a directory`);
  if (r.exitCode !== 0) {
    const status = /no space left|quota exceeded/i.test(r.stderr) ? 507 : 500;
    throw new HttpError(status, `cannot write '${path}': ${r.stderr.trim() || `exit ${r.exitCode}`}`);
  }
}

/** Passes bytes through until more than `maxBytes` went by, then fails with a 413. */
class ByteLimit extends Transform {
  private seen = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(
    chunk: Buffer,
    _encoding: string,
    done: (e?: Error | null, data?: Buffer) => void,
  ): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) done(tooLarge(this.maxBytes));
    else done(null, chunk);
  }
}

function decodedBody(req: IncomingMessage): Readable {
  const encoding = (headerValue(req, 'content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return req;
  if (encoding === 'gzip') return req.pipe(createGunzip());
  throw new HttpError(400, `unsupported Content-Encoding "${encoding}": send identity or gzip`);
}

async function clientError<T>(fn: () => T | Promise<T>): Promise<Awaited<T>> {
  try {
    return await fn();
  } catch (e) {
    throw isConfigError(e) ? new HttpError(400, e.message) : e;
  }
}

function pathParam(value: string | null): string {
  try {
    return resolveSandboxPath(value ?? '', 'path');
  } catch (e) {
    throw new HttpError(400, (e as Error).message);
  }
}

function entryOf(path: string): { path: string; name: string; type: 'file' } {
  return { path, name: posix.basename(path), type: 'file' };
}

function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((v) => v !== undefined);
    return name === 'gzip' && (q === undefined || Number(q) > 0);
  });
}

/** The first chunk of a stream (which is left paused), or undefined if it ends empty. */
function firstChunk(stream: Readable): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      stream.pause();
      cleanup();
      resolve(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(undefined);
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    stream.on('error', onError);
  });
}
