import { constants, createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, readlink, realpath, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { SandgymError } from '../errors.ts';

/** Default cap on the bytes of file data one extraction writes (a sparse 20 GiB file is 20 GiB here). */
const DEFAULT_EXTRACT_MAX_BYTES = 16 * 1024 ** 3;

export interface ExtractOptions {
  /** Leading path components dropped from every entry's name (and hard link target). */
  stripComponents?: number;
  /** Cap on the file bytes written; past it the extraction fails. */
  maxBytes?: number;
}

/**
 * Extracts a tar stream that came out of a sandbox into `hostDir`. Every provider's downloadDir goes
 * through here: the archive is untrusted (the sandbox's own `tar` can be replaced by anything), so the
 * rules are those of Python's tarfile "data" filter (PEP 706), applied on the host:
 * - names lose their leading "/"; a name with a ".." component is refused;
 * - only regular files, directories, symlinks and hard links are made: a device node, FIFO or other
 *   special entry is refused (the host would otherwise get a node opening its own disks);
 * - a symlink with an absolute target, or one that resolves outside `hostDir`, is refused;
 * - a hard link becomes a copy of a regular file extracted before it (never a link to a host inode);
 * - file modes lose setuid/setgid/sticky and group/other write, gain owner read/write, and lose
 *   execute when the owner has none; directory modes and all owners are ignored (the host's defaults);
 * - nothing is ever written through a symlink: a parent that is not a real directory fails the
 *   extraction, and an existing file or link at an entry's place is removed first, never opened.
 * Node has no openat() (libuv#4167), so the checks are lstat-based; that is sound because no one but
 * this extraction writes into `hostDir` while it runs (the sandbox cannot reach the host's tree).
 */
export async function extractTar(
  source: Readable,
  hostDir: string,
  options: ExtractOptions = {},
): Promise<void> {
  await mkdir(hostDir, { recursive: true });
  const state: ExtractState = {
    hostDir,
    realHostDir: await realpath(hostDir),
    stripComponents: options.stripComponents ?? 0,
    bytesLeft: options.maxBytes ?? DEFAULT_EXTRACT_MAX_BYTES,
    realDirs: new Set([hostDir]),
  };
  const extract = tar.extract();
  await new Promise<void>((resolvePromise, reject) => {
    const fail = (e: unknown) => {
      source.destroy();
      extract.destroy();
      reject(e);
    };
    // Listeners go on before any data flows: entries emitted with no listener would be lost.
    extract.on('entry', (header, stream, next) => {
      extractEntry(state, header, stream).then(() => next(), fail);
    });
    extract.on('finish', resolvePromise);
    extract.on('error', fail);
    source.on('error', fail);
    source.pipe(extract);
  });
}

/** An entry's data, as tar-stream (streamx) hands it over. */
type EntryStream = { [Symbol.asyncIterator](): AsyncIterator<unknown>; resume(): unknown };

interface ExtractState {
  hostDir: string;
  realHostDir: string;
  stripComponents: number;
  bytesLeft: number;
  /** Directories known to be real (not links), created or checked. */
  realDirs: Set<string>;
}

/** Writes one entry; always consumes its stream. */
async function extractEntry(state: ExtractState, header: tar.Header, stream: EntryStream): Promise<void> {
  const parts = entryParts(header.name, state.stripComponents);
  const type = header.type ?? 'file';
  if (parts === undefined) {
    stream.resume();
    return;
  }
  if (!['directory', 'file', 'contiguous-file', 'symlink', 'link'].includes(type)) {
    stream.resume();
    throw new SandgymError(
      `tar entry "${header.name}" is a ${type}: only files, directories and links are extracted`,
    );
  }
  const target = join(state.hostDir, ...parts);
  await ensureRealParents(state, parts);
  if (type === 'file' || type === 'contiguous-file') {
    const size = header.size ?? 0;
    if (size > state.bytesLeft) {
      stream.resume();
      throw new SandgymError(
        `tar entry "${header.name}" (${size} bytes) goes over the extraction's byte cap`,
      );
    }
    state.bytesLeft -= size;
    await clearPlace(target);
    await pipeline(
      stream as AsyncIterable<Buffer>,
      createWriteStream(target, { flags: 'wx', mode: fileMode(header.mode) }),
    );
    return;
  }
  stream.resume();
  if (type === 'directory') {
    await makeRealDir(target, state.realDirs);
  } else if (type === 'symlink') {
    await checkSymlink(state, target, header);
    await clearPlace(target);
    await symlink(header.linkname!, target);
  } else {
    await copyHardLink(state, target, header);
  }
}

/** PEP 706 file modes: no setuid/setgid/sticky or group/other write; owner can read and write. */
function fileMode(mode: number | undefined): number {
  let m = (mode ?? 0o644) & 0o755;
  if (!(m & 0o100)) m &= ~0o111;
  return m | 0o600;
}

/** An entry's path components after stripping, or undefined for the stripped root itself. */
function entryParts(name: string, strip: number): string[] | undefined {
  const components = name.split('/').filter((p) => p !== '');
  if (components.includes('..')) throw new SandgymError(`tar entry "${name}" climbs out with ".."`);
  const rest = components.slice(strip).filter((p) => p !== '.');
  return rest.length > 0 ? rest : undefined;
}

/** A symlink may point only inside the tree: relative, and resolving (through what exists) inside. */
async function checkSymlink(state: ExtractState, target: string, header: tar.Header): Promise<void> {
  const link = header.linkname ?? '';
  const refuse = (why: string) =>
    new SandgymError(`tar entry "${header.name}" is a symlink to "${link}", ${why}`);
  if (link === '' || link.includes('\0')) throw refuse('an invalid target');
  if (link.startsWith('/')) throw refuse('an absolute path');
  if (!isInside(state.hostDir, resolve(dirname(target), link))) throw refuse('outside the directory');
  // What the kernel would follow: links made earlier resolve for real (as tarfile's realpath check).
  if (!isInside(state.realHostDir, await followLink(await realpath(dirname(target)), link))) {
    throw refuse('which resolves outside the directory');
  }
}

/** A hard link becomes a copy of the regular file it names, which must be in the tree already. */
async function copyHardLink(state: ExtractState, target: string, header: tar.Header): Promise<void> {
  const sourceParts = entryParts(header.linkname ?? '', state.stripComponents);
  if (!sourceParts) throw new SandgymError(`tar entry "${header.name}" is a hard link to nothing`);
  const source = join(state.hostDir, ...sourceParts);
  let dir = state.hostDir;
  for (const part of sourceParts.slice(0, -1)) {
    dir = join(dir, part);
    if (!state.realDirs.has(dir)) {
      throw new SandgymError(`tar entry "${header.name}" is a hard link through "${dir}", not a directory`);
    }
  }
  const st = await lstat(source).catch(() => undefined);
  if (!st?.isFile()) {
    throw new SandgymError(
      `tar entry "${header.name}" is a hard link to "${header.linkname}", not a regular file extracted before it`,
    );
  }
  if (st.size > state.bytesLeft) {
    throw new SandgymError(`tar entry "${header.name}" goes over the extraction's byte cap`);
  }
  state.bytesLeft -= st.size;
  await clearPlace(target);
  await copyFile(source, target, constants.COPYFILE_EXCL);
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/**
 * Where the kernel would take a symlink to `link` placed in the real directory `dir`: component by
 * component, following links already on disk ("d/d/.." is not "." when d is a link), as far as they exist.
 */
async function followLink(dir: string, link: string, hops = { left: 40 }): Promise<string> {
  let current = link.startsWith('/') ? '/' : dir;
  for (const part of link.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const st = await lstat(next).catch(() => undefined);
    if (!st?.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (--hops.left < 0) throw new SandgymError(`too many levels of symlinks at "${next}"`);
    current = await followLink(current, await readlink(next), hops);
  }
  return current;
}

/** Every parent of the entry must be a real directory inside hostDir (created when missing). */
async function ensureRealParents(state: ExtractState, parts: string[]): Promise<void> {
  let dir = state.hostDir;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    await makeRealDir(dir, state.realDirs);
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
