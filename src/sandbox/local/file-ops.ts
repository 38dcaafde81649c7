import { spawn } from 'node:child_process';
import { posix } from 'node:path';
import { PassThrough } from 'node:stream';
import { ConfigError, FileTooLargeError, SandboxError, SandgymError } from '../../errors.ts';
import { extractTar } from '../extract-tar.ts';
import type { RawCommandParams, RawResult } from './raw-command.ts';

/** Deadline of one file operation; a stuck filesystem must not hang the caller. */
export const FILE_OP_TIMEOUT_MS = 300_000;

/** What the file operations need from a sandbox: run a helper command inside it. */
export interface FileOpsHost {
  readonly id: string;
  readonly workdir: string;
  raw(
    argv: readonly string[],
    options: Pick<RawCommandParams, 'stdin' | 'stdout' | 'maxStdoutBytes' | 'timeoutMs' | 'signal'>,
  ): Promise<RawResult>;
}

/**
 * All file operations run inside the sandbox's namespaces (cat, tar), never on the overlay's host path:
 * a symlink the agent plants then resolves inside the sandbox and cannot reach host files.
 */
export function sandboxPath(host: FileOpsHost, path: string): string {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
    throw new ConfigError(
      `sandbox ${host.id}: invalid path ${JSON.stringify(path)}: expected a non-empty string`,
    );
  }
  return posix.resolve(host.workdir, path);
}

function failure(host: FileOpsHost, what: string, r: RawResult): SandboxError {
  const why =
    r.exitCode === 124 ? `timed out after ${FILE_OP_TIMEOUT_MS} ms` : r.stderr.trim() || `exit ${r.exitCode}`;
  return new SandboxError(host.id, `${what}: ${why}`);
}

/** Reads at most `maxBytes` into host memory, whatever the sandbox's `cat` (or the file) does. */
export async function readSandboxFile(host: FileOpsHost, path: string, maxBytes: number): Promise<Buffer> {
  const abs = sandboxPath(host, path);
  const r = await host.raw(['cat', '--', abs], { timeoutMs: FILE_OP_TIMEOUT_MS, maxStdoutBytes: maxBytes });
  if (r.overflowed) throw new FileTooLargeError(host.id, abs, maxBytes);
  if (r.exitCode !== 0) throw failure(host, `cannot read ${abs}`, r);
  return r.stdout;
}

export async function writeSandboxFile(
  host: FileOpsHost,
  path: string,
  data: string | Uint8Array,
  mode: number | undefined,
): Promise<void> {
  const abs = sandboxPath(host, path);
  if (mode !== undefined && (!Number.isInteger(mode) || mode < 0 || mode > 0o7777)) {
    throw new ConfigError(`sandbox ${host.id}: invalid file mode ${mode} for ${abs}`);
  }
  const script =
    'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"' + (mode === undefined ? '' : ' && chmod "$2" "$1"');
  const args = ['/bin/sh', '-c', script, 'sh', abs, (mode ?? 0).toString(8)];
  const stdin =
    typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.length);
  const r = await host.raw(args, { stdin, timeoutMs: FILE_OP_TIMEOUT_MS });
  if (r.exitCode !== 0) throw failure(host, `cannot write ${abs}`, r);
}

/** Streams a host directory's contents through tar into `sandboxDir`, owned by root inside. */
export async function uploadDirectory(host: FileOpsHost, hostDir: string, sandboxDir: string): Promise<void> {
  const abs = sandboxPath(host, sandboxDir);
  const tar = spawn('tar', ['-C', hostDir, '--owner=0', '--group=0', '--numeric-owner', '-cf', '-', '.'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tarResult = hostToolResult(tar, `cannot read host directory ${hostDir}`, host.id);
  // Read from now on: Node discards the unread output of a child that exits (a small directory's tar can
  // finish before the sandbox side has started).
  const archive = tar.stdout!.pipe(new PassThrough());
  const r = await host.raw(['/bin/sh', '-c', 'mkdir -p -- "$1" && tar -x -C "$1" -f -', 'sh', abs], {
    stdin: archive,
    timeoutMs: FILE_OP_TIMEOUT_MS,
  });
  await tarResult;
  if (r.exitCode !== 0) throw failure(host, `cannot upload ${hostDir} to ${abs}`, r);
}

/**
 * Streams `sandboxDir` out through the sandbox's tar into a host directory. The archive is untrusted (the
 * sandbox's tar can be anything): extractTar applies the PEP 706 "data" rules on the host.
 */
export async function downloadDirectory(
  host: FileOpsHost,
  sandboxDir: string,
  hostDir: string,
  maxBytes: number | undefined,
): Promise<void> {
  const abs = sandboxPath(host, sandboxDir);
  const archive = new PassThrough();
  const stop = new AbortController();
  const extracted = extractTar(archive, hostDir, maxBytes === undefined ? {} : { maxBytes }).catch(
    (e: unknown) => {
      stop.abort();
      throw e instanceof SandgymError && !(e instanceof SandboxError)
        ? new SandboxError(host.id, `downloadDir ${abs}: ${e.message}`, { cause: e })
        : e;
    },
  );
  extracted.catch(() => {});
  const r = await host.raw(['tar', '-c', '-C', abs, '-f', '-', '.'], {
    stdout: archive,
    timeoutMs: FILE_OP_TIMEOUT_MS,
    signal: stop.signal,
  });
  if (r.exitCode !== 0 && !stop.signal.aborted) {
    archive.destroy();
    throw failure(host, `cannot download ${abs}`, r);
  }
  await extracted;
}

function hostToolResult(child: ReturnType<typeof spawn>, what: string, id: string): Promise<void> {
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const result = new Promise<void>((resolve, reject) => {
    child.once('error', (e) => reject(new SandboxError(id, `${what}: ${e.message}`, { cause: e })));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new SandboxError(id, `${what}: ${stderr.trim()}`)),
    );
  });
  // The caller awaits it after the sandbox side finished; until then a failure must not count as unhandled.
  result.catch(() => {});
  return result;
}
