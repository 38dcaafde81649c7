import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetError } from '../../../src/errors.ts';
import { BASE_IMAGES } from '../../../src/sandbox/images/base-recipes.ts';
import { resolveHome } from '../../../src/sandbox/images/home.ts';
import { ImageStore } from '../../../src/sandbox/images/image-store.ts';
import { type PytestReport, parsePytestLog } from './pytest-log.ts';

/**
 * The root filesystem of the base image (`sandgym images build sandgym/base`, which `npm start` and
 * `npm test` build): the Debian bookworm, python3 and pytest that task sandboxes run. Undefined when it
 * is not built.
 */
export async function baseImageRootfs(): Promise<string | undefined> {
  const store = new ImageStore(resolveHome());
  const record = await store.getComplete(BASE_IMAGES.base!.image);
  return record?.layers.length === 1 ? store.layerRootfs(record.layers[0]!) : undefined;
}

export interface PytestRunOptions {
  /** Root filesystem with python3 and pytest (Debian bookworm: python 3.11.2, pytest 7.2.1). */
  rootfs: string;
  /** Deadline of the whole run; on expiry the process group is killed and the run throws. */
  timeoutMs?: number;
  /** Names the run in errors: `sandgym__inikit-0001 (after gold patch)`. */
  label: string;
}

export interface PytestRun {
  exitCode: number;
  /** stdout and stderr, interleaved as written. */
  log: string;
  report: PytestReport;
}

/**
 * Runs `python3 -m pytest -rA <args>` on `dir`, mounted at /testbed of a bubblewrap sandbox over
 * `rootfs`: the interpreter, pytest and /testbed layout that task sandboxes have. The rootfs is bound
 * directory by directory under bwrap's own root so /testbed can be created without writing to it.
 * Exit codes 0 and 1 (tests ran; some failed) are results; anything else (collection errors, usage
 * errors, no tests) throws with the log.
 */
export async function runPytest(
  dir: string,
  args: readonly string[],
  options: PytestRunOptions,
): Promise<PytestRun> {
  const { rootfs, label, timeoutMs = 120_000 } = options;
  if (!existsSync(join(rootfs, 'usr/bin/python3'))) {
    throw new DatasetError(
      `${label}: ${rootfs} has no usr/bin/python3; pass --rootfs <dir> pointing at a Debian bookworm root filesystem with python3-pytest`,
    );
  }
  const bwrap = [
    ...['--ro-bind', join(rootfs, 'usr'), '/usr', '--ro-bind', join(rootfs, 'etc'), '/etc'],
    ...['--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib'],
    ...['--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/sbin', '/sbin'],
    ...['--bind', dir, '/testbed', '--chdir', '/testbed'],
    ...['--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp'],
    ...['--unshare-all', '--die-with-parent', '--new-session', '--clearenv'],
    ...[
      '--setenv',
      'PATH',
      '/usr/local/bin:/usr/bin:/bin',
      '--setenv',
      'HOME',
      '/root',
      '--setenv',
      'LANG',
      'C.UTF-8',
    ],
    ...['python3', '-m', 'pytest', '-rA', '-p', 'no:cacheprovider', ...args],
  ];
  const child = spawn('bwrap', bwrap, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, timeoutMs);
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.on('error', (e) =>
      reject(new DatasetError(`${label}: cannot start bwrap: ${e.message}`, { cause: e })),
    );
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15)));
  }).finally(() => clearTimeout(timer));
  const log = Buffer.concat(chunks).toString('utf8');
  if (timedOut) throw new DatasetError(`${label}: pytest did not finish within ${timeoutMs / 1000} s`);
  if (exitCode !== 0 && exitCode !== 1) {
    throw new DatasetError(`${label}: pytest exited ${exitCode} (collection or usage error):\n${tail(log)}`);
  }
  return { exitCode, log, report: parsePytestLog(log) };
}

function tail(log: string): string {
  return log.split('\n').slice(-40).join('\n');
}
