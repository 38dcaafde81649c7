import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { FileTooLargeError, SandboxError, SandgymError } from '../../errors.ts';
import { extractTar } from '../extract-tar.ts';
import { engineMessage, httpStatus } from './docker-api.ts';
import { type ExecTarget, explainFailure } from './exec-session.ts';
import { packDirectory } from './pack-directory.ts';

/** Deadline of one archive transfer; large directories over a local socket take seconds, not minutes. */
const ARCHIVE_TIMEOUT_MS = 10 * 60_000;
/** A transfer that sends nothing for this long is dead. */
const ARCHIVE_IDLE_MS = 60_000;
/** Symlinks followed by readFile before giving up, as the kernel's ELOOP limit. */
const MAX_SYMLINKS = 40;

/**
 * The sandbox file API over the engine's archive endpoints (`docker cp` underneath): files travel as
 * tar, paths resolve inside the container's root (symlinks too), and parents are created on write.
 * `path` arguments are already normalized absolute paths (see sandbox-path.ts).
 */
export async function readContainerFile(target: ExecTarget, path: string, maxBytes: number): Promise<Buffer> {
  let current = path;
  for (let hops = 0; hops <= MAX_SYMLINKS; hops++) {
    const entry = await firstEntry(target, current, 'readFile', maxBytes);
    if (entry.type === 'file') return entry.data;
    if (entry.type === 'directory') {
      throw new SandboxError(target.sandboxId, `readFile ${path}: is a directory; use downloadDir`);
    }
    const link = entry.linkname;
    current = posix.resolve(posix.dirname(current), link);
  }
  throw new SandboxError(target.sandboxId, `readFile ${path}: more than ${MAX_SYMLINKS} levels of symlinks`);
}

export async function writeContainerFile(
  target: ExecTarget,
  path: string,
  data: string | Uint8Array,
  mode: number,
): Promise<void> {
  if (path === '/') throw new SandboxError(target.sandboxId, 'writeFile /: is a directory');
  const body = Buffer.from(data);
  const pack = tar.pack();
  // Only the file's own entry: the engine creates missing parents (0755) and leaves existing ones alone.
  pack.entry(
    { name: path.slice(1), type: 'file', mode: mode & 0o7777, size: body.length, uid: 0, gid: 0 },
    body,
  );
  pack.finalize();
  const archive = await collect(pack);
  await putArchive(target, archive, `writeFile ${path}`);
}

export async function uploadDirectory(
  target: ExecTarget,
  hostDir: string,
  sandboxDir: string,
): Promise<void> {
  const exists = await isDirectory(target, sandboxDir);
  const archive = packDirectory(hostDir, sandboxDir, exists ? {} : { rootMode: 0o755 });
  await putArchive(target, archive as unknown as Readable, `uploadDir ${hostDir} → ${sandboxDir}`);
}

export async function downloadDirectory(
  target: ExecTarget,
  sandboxDir: string,
  hostDir: string,
  maxBytes: number | undefined,
): Promise<void> {
  // "<dir>/." makes the engine follow a symlinked directory and name entries "./…".
  const source = await getArchive(
    target,
    `${sandboxDir === '/' ? '' : sandboxDir}/.`,
    `downloadDir ${sandboxDir}`,
  );
  try {
    await extractTar(source, hostDir, { stripComponents: 1, ...(maxBytes !== undefined && { maxBytes }) });
  } catch (e) {
    source.destroy();
    if (e instanceof SandgymError)
      throw new SandboxError(target.sandboxId, `downloadDir ${sandboxDir}: ${e.message}`);
    throw e;
  }
}

async function isDirectory(target: ExecTarget, path: string): Promise<boolean> {
  try {
    return (await firstEntry(target, path, 'uploadDir')).type === 'directory';
  } catch (e) {
    if (e instanceof FileTooLargeError) return false;
    if (e instanceof SandboxError && /no such file/.test(e.message)) return false;
    throw e;
  }
}

type FirstEntry =
  | { type: 'file'; data: Buffer }
  | { type: 'directory' }
  | { type: 'symlink'; linkname: string };

/**
 * The first entry of the archive of `path`: the file, the directory or the link itself. A file longer
 * than `maxBytes` is refused from its header, before any of its data is read.
 */
async function firstEntry(target: ExecTarget, path: string, what: string, maxBytes = 0): Promise<FirstEntry> {
  const source = await getArchive(target, path, `${what} ${path}`);
  const extract = tar.extract();
  try {
    return await new Promise<FirstEntry>((resolve, reject) => {
      // The listener goes on before data flows: an entry emitted with no listener would be lost.
      extract.once('entry', (header, stream) => {
        const { type, linkname } = header;
        if (type === 'file' || type === 'contiguous-file') {
          if ((header.size ?? 0) > maxBytes) {
            stream.resume();
            reject(new FileTooLargeError(target.sandboxId, path, maxBytes));
            return;
          }
          collect(stream).then((data) => resolve({ type: 'file', data }), reject);
          return;
        }
        stream.resume();
        if (type === 'directory') resolve({ type: 'directory' });
        else if (type === 'symlink' && linkname) resolve({ type: 'symlink', linkname });
        else reject(new SandboxError(target.sandboxId, `${what} ${path}: not a regular file (${type})`));
      });
      extract.on('finish', () =>
        reject(new SandboxError(target.sandboxId, `${what} ${path}: the engine sent an empty archive`)),
      );
      extract.on('error', reject);
      source.on('error', reject);
      source.pipe(extract);
    });
  } finally {
    source.destroy();
    extract.destroy();
  }
}

async function getArchive(target: ExecTarget, path: string, what: string): Promise<Readable> {
  try {
    const source = (await target.api.call(
      'archive get',
      (abortSignal) => target.container.getArchive({ path, abortSignal } as { path: string }),
      { sandboxId: target.sandboxId },
    )) as Readable & { setTimeout?: (ms: number, cb: () => void) => void };
    source.setTimeout?.(ARCHIVE_IDLE_MS, () =>
      source.destroy(new Error(`no data for ${ARCHIVE_IDLE_MS} ms`)),
    );
    return source;
  } catch (e) {
    throw await archiveError(target, e, what);
  }
}

async function putArchive(target: ExecTarget, archive: Buffer | Readable, what: string): Promise<void> {
  try {
    await target.api.call(
      'archive put',
      (abortSignal) => target.container.putArchive(archive, { path: '/', abortSignal } as { path: string }),
      { sandboxId: target.sandboxId, timeoutMs: ARCHIVE_TIMEOUT_MS },
    );
  } catch (e) {
    throw await archiveError(target, e, what);
  }
}

/** Closed or died first; then the engine's own words (missing file, full disk, file in the way). */
async function archiveError(target: ExecTarget, e: unknown, what: string): Promise<unknown> {
  const explained = await explainFailure(target, e);
  const status = httpStatus(explained);
  if (status === undefined) return explained;
  const detail = status === 404 ? 'no such file or directory' : engineMessage(explained);
  return new SandboxError(target.sandboxId, `${what}: ${detail}`, { cause: explained });
}

async function collect(stream: { [Symbol.asyncIterator](): AsyncIterator<unknown> }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
