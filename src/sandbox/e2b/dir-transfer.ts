import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { SandboxError, SandgymError } from '../../errors.ts';
import { extractTar } from '../extract-tar.ts';
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
 * is untrusted: extractTar applies the PEP 706 "data" rules on the host.
 */
export async function downloadDirectory(
  host: TransferHost,
  sandboxDir: string,
  hostDir: string,
  maxBytes: number | undefined,
): Promise<void> {
  const archive = temporaryArchive('download');
  const packed = await host.exec(['tar', '-c', '-C', sandboxDir, '-f', archive, '.'], {
    timeoutMs: TRANSFER_EXEC_TIMEOUT_MS,
  });
  try {
    if (packed.exitCode !== 0)
      throw host.failure(new Error(packed.stderr.trim()), `cannot pack ${sandboxDir}`);
    let res: Awaited<ReturnType<EnvdClient['download']>>;
    try {
      res = await host.envd.download(archive);
    } catch (e) {
      throw host.failure(e, `cannot download ${sandboxDir}`);
    }
    const body = Readable.from(withIdleDeadline(res, host.streamIdleTimeoutMs));
    try {
      await extractTar(body, hostDir, maxBytes === undefined ? {} : { maxBytes });
    } catch (e) {
      res.destroy();
      // A refused archive is the sandbox's doing, not a transport fault: retrying will not help.
      if (e instanceof SandgymError && !(e instanceof SandboxError))
        throw new SandboxError(host.id, `downloadDir ${sandboxDir}: ${e.message}`, { cause: e });
      throw host.failure(e, `cannot download ${sandboxDir}`);
    }
  } finally {
    await host.exec(['rm', '-f', '--', archive], { timeoutMs: 60_000 }).catch(() => {});
  }
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
