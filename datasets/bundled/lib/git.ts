import { spawn } from 'node:child_process';
import { DatasetError } from '../../../src/errors.ts';

/**
 * Runs git with an environment that ignores the user's and the system's configuration, so that
 * diffs, applied patches and commit hashes depend only on the files (no `diff.noprefix`, hooks,
 * signing or `core.autocrlf` from the machine that happens to run the generator).
 */
export async function git(
  args: readonly string[],
  options: { cwd: string; input?: string; env?: Record<string, string> },
): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...options.env,
  };
  const child = spawn('git', ['-c', 'core.autocrlf=false', '-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: options.cwd,
    env,
    stdio: 'pipe',
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  // git may exit before reading all of its input (a patch it rejects); its exit code says so.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  if (exitCode !== 0) {
    const message = Buffer.concat(stderr).toString('utf8').trim();
    throw new DatasetError(`git ${args.join(' ')} (in ${options.cwd}) exited ${exitCode}: ${message}`);
  }
  return Buffer.concat(stdout).toString('utf8');
}
