import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { SandgymError } from '../../errors.ts';
import type { ExecResult } from '../types.ts';
import type { EnvdClient } from './envd-client.ts';
import { withIdleDeadline } from './http-transport.ts';

/** What the directory copies need from the sandbox. */
export interface TransferHost {
  readonly id: string;
  readonly envd: EnvdClient;
  readonly streamIdleTimeoutMs: number;
  exec(argv: readonly string[], options: { timeoutMs: number }): Promise<ExecResult>;
  failure(e: unknown, what: string): Error;
}

const TRANSFER_EXEC_TIMEOUT_MS = 30 * 60_000;

/**
 * Copies a host directory's contents into `sandboxDir`: host tar streams the tree (owners become root)
 * to a temporary archive uploaded through /files, which tar unpacks inside the sandbox.
 */
export async function uploadDirectory(
  host: TransferHost,
  hostDir: string,
  sandboxDir: string,
): Promise<void> {
  const archive = temporaryArchive('upload');
  const tar = spawn('tar', ['-C', hostDir, '--owner=0', '--group=0', '--numeric-owner', '-cf', '-', '.'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const packed = hostTarResult(tar, `cannot read host directory ${hostDir}`);
  try {
    await host.envd.upload(archive, tar.stdout!);
  } catch (e) {
    tar.kill('SIGKILL');
    await packed.catch(() => {});
    throw host.failure(e, `cannot upload ${hostDir} to ${sandboxDir}`);
  }
  await packed;
  const r = await host.exec(
    [
      '/bin/sh',
      '-c',
      'mkdir -p -- "$1" && tar -x -C "$1" -f "$2"; rc=$?; rm -f -- "$2"; exit $rc',
      'sh',
      sandboxDir,
      archive,
    ],
    { timeoutMs: TRANSFER_EXEC_TIMEOUT_MS },
  );
  if (r.exitCode !== 0)
    throw host.failure(new Error(r.stderr.trim()), `cannot unpack ${hostDir} into ${sandboxDir}`);
}

/**
 * Copies `sandboxDir`'s contents into a host directory. The archive comes from inside the sandbox, so it
 * is untrusted: host tar refuses `..` members and writing through symlinks, and with
 * --no-same-owner/--no-same-permissions nothing comes out setuid or owned by someone else.
 */
export async function downloadDirectory(
  host: TransferHost,
  sandboxDir: string,
  hostDir: string,
): Promise<void> {
  const archive = temporaryArchive('download');
  const packed = await host.exec(['tar', '-c', '-C', sandboxDir, '-f', archive, '.'], {
    timeoutMs: TRANSFER_EXEC_TIMEOUT_MS,
  });
  try {
    if (packed.exitCode !== 0)
      throw host.failure(new Error(packed.stderr.trim()), `cannot pack ${sandboxDir}`);
    await mkdir(hostDir, { recursive: true });
    const tar = spawn('tar', ['-C', hostDir, '--no-same-owner', '--no-same-permissions', '-xf', '-'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    const unpacked = hostTarResult(tar, `cannot unpack into host directory ${hostDir}`);
    try {
      const res = await host.envd.download(archive);
      await feed(withIdleDeadline(res, host.streamIdleTimeoutMs), tar.stdin!);
    } catch (e) {
      tar.kill('SIGKILL');
      await unpacked.catch(() => {});
      throw host.failure(e, `cannot download ${sandboxDir}`);
    }
    await unpacked;
  } finally {
    await host.exec(['rm', '-f', '--', archive], { timeoutMs: 60_000 }).catch(() => {});
  }
}

/**
 * Writes the chunks into host tar's stdin. Tar may exit once it has read the end-of-archive blocks,
 * before the record padding after them: a closed stdin then ends the copy, and tar's exit code decides.
 */
async function feed(chunks: AsyncIterable<Buffer>, sink: Writable): Promise<void> {
  sink.on('error', () => {});
  for await (const chunk of chunks) {
    if (sink.destroyed) break;
    if (!sink.write(chunk)) {
      await new Promise((resolve) => {
        sink.once('drain', resolve);
        sink.once('close', resolve);
      });
    }
  }
  sink.end();
}

function temporaryArchive(kind: string): string {
  return `/tmp/.sandgym-${kind}-${randomBytes(6).toString('hex')}.tar`;
}

function hostTarResult(child: ReturnType<typeof spawn>, what: string): Promise<void> {
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', (e) => reject(new SandgymError(`${what}: ${e.message}`, { cause: e })));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new SandgymError(`${what}: tar exited ${code}: ${stderr.trim()}`)),
    );
  });
}
