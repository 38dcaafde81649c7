import { createWriteStream } from 'node:fs';
import { chmod, link, lstat, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { SandgymError } from '../../errors.ts';

/**
 * Extracts a tar stream that came out of a sandbox into `hostDir`, dropping the first
 * `stripComponents` path components of every entry.
 *
 * The archive is untrusted: the sandbox wrote it. No entry may land outside `hostDir` — `..` components
 * are refused, and nothing is ever written through a symlink: a parent that is not a real directory
 * (say, a link the archive itself planted earlier) fails the extraction, and an existing file or link
 * at an entry's place is removed first, never opened. Symlinks are recreated as links, unresolved.
 * Modes keep their permission bits only (no setuid from a sandbox onto the host); directory modes are
 * applied last so that read-only directories can be filled first.
 */
export async function extractTar(source: Readable, hostDir: string, stripComponents: number): Promise<void> {
  await mkdir(hostDir, { recursive: true });
  const state: ExtractState = { hostDir, stripComponents, realDirs: new Set([hostDir]), dirModes: [] };
  const extract = tar.extract();
  await new Promise<void>((resolve, reject) => {
    const fail = (e: unknown) => {
      source.destroy();
      extract.destroy();
      reject(e);
    };
    // Listeners go on before any data flows: entries emitted with no listener would be lost.
    extract.on('entry', (header, stream, next) => {
      extractEntry(state, header, stream).then(() => next(), fail);
    });
    extract.on('finish', resolve);
    extract.on('error', fail);
    source.on('error', fail);
    source.pipe(extract);
  });
  for (const [dir, mode] of state.dirModes.reverse()) await chmod(dir, mode);
}

/** An entry's data, as tar-stream (streamx) hands it over. */
type EntryStream = { [Symbol.asyncIterator](): AsyncIterator<unknown>; resume(): unknown };

interface ExtractState {
  hostDir: string;
  stripComponents: number;
  /** Directories known to be real (not links), created or checked. */
  realDirs: Set<string>;
  dirModes: [string, number][];
}

/** Writes one entry; always consumes its stream. */
async function extractEntry(state: ExtractState, header: tar.Header, stream: EntryStream): Promise<void> {
  const parts = entryParts(header.name, state.stripComponents);
  const type = header.type;
  if (
    parts === undefined ||
    !(type && ['directory', 'file', 'contiguous-file', 'symlink', 'link'].includes(type))
  ) {
    stream.resume();
    return;
  }
  const target = join(state.hostDir, ...parts);
  await ensureRealParents(state.hostDir, parts, state.realDirs);
  const mode = (header.mode ?? 0o644) & 0o777;
  if (type === 'file' || type === 'contiguous-file') {
    await clearPlace(target);
    await pipeline(stream as AsyncIterable<Buffer>, createWriteStream(target, { flags: 'wx', mode }));
    await chmod(target, mode);
    return;
  }
  stream.resume();
  if (type === 'directory') {
    await makeRealDir(target, state.realDirs);
    state.dirModes.push([target, mode]);
  } else if (type === 'symlink') {
    await clearPlace(target);
    await symlink(header.linkname ?? '', target);
  } else {
    const sourceParts = entryParts(header.linkname ?? '', state.stripComponents);
    if (!sourceParts) throw new SandgymError(`tar entry "${header.name}" links to a path outside`);
    await clearPlace(target);
    await link(join(state.hostDir, ...sourceParts), target);
  }
}

/** An entry's path components after stripping, or undefined for the stripped root itself. */
function entryParts(name: string, strip: number): string[] | undefined {
  const rest = name
    .split('/')
    .filter((p) => p !== '')
    .slice(strip)
    .filter((p) => p !== '.');
  if (rest.includes('..')) throw new SandgymError(`tar entry "${name}" climbs out with ".."`);
  return rest.length > 0 ? rest : undefined;
}

/** Every parent of the entry must be a real directory inside hostDir (created when missing). */
async function ensureRealParents(hostDir: string, parts: string[], realDirs: Set<string>): Promise<void> {
  let dir = hostDir;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    await makeRealDir(dir, realDirs);
  }
}

async function makeRealDir(dir: string, realDirs: Set<string>): Promise<void> {
  if (realDirs.has(dir)) return;
  const st = await lstat(dir).catch(() => undefined);
  if (!st) await mkdir(dir, { mode: 0o755 });
  else if (!st.isDirectory())
    throw new SandgymError(`tar entry path "${dir}" is not a real directory (a link?)`);
  realDirs.add(dir);
}

/** Removes a file or link where an entry goes, so that writing never follows a link. */
async function clearPlace(target: string): Promise<void> {
  const st = await lstat(target).catch(() => undefined);
  if (!st) return;
  if (st.isDirectory()) throw new SandgymError(`tar entry "${target}" would replace a directory`);
  await rm(target);
}
