import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SandgymError } from '../../errors.ts';

export interface HostCommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Piped to the command's stdin; stdin is /dev/null without it. */
  stdin?: Readable;
  /** Every line of stdout and stderr as it comes (for progress logs); the output is then not kept. */
  onLine?: (line: string) => void;
  signal?: AbortSignal;
  /** Kills the command after this long; default no deadline (callers with user-facing waits set one). */
  timeoutMs?: number;
}

export interface HostCommandResult {
  stdout: string;
  stderr: string;
}

const KEEP_BYTES = 64 * 1024;

/**
 * Runs a host tool (tar, du, debootstrap, cp) to completion. A non-zero exit throws a `SandgymError` that
 * quotes the command and the end of its stderr: these are sandgym's own steps, not an agent's commands.
 */
export function runHostCommand(
  file: string,
  args: readonly string[],
  options: HostCommandOptions = {},
): Promise<HostCommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      signal: options.signal,
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
    });
    const out = { stdout: '', stderr: '' };
    const collect = (name: 'stdout' | 'stderr') => {
      let partial = '';
      child[name]!.setEncoding('utf8').on('data', (s: string) => {
        if (options.onLine) {
          const lines = (partial + s).split('\n');
          partial = lines.pop()!;
          for (const l of lines) options.onLine(l);
        }
        // Keep the end: that is where tools explain why they failed.
        out[name] = (out[name] + s).slice(-KEEP_BYTES);
      });
      child[name]!.on('end', () => partial && options.onLine?.(partial));
    };
    collect('stdout');
    collect('stderr');
    if (options.stdin) {
      options.stdin.on('error', (e) => child.kill('SIGKILL') && reject(e));
      options.stdin.pipe(child.stdin!);
      child.stdin!.on('error', () => {});
    }
    child.on('error', (e) => reject(new SandgymError(`could not run ${file}: ${e.message}`, { cause: e })));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(out);
      const why = signal ? `was killed by ${signal}` : `exited with ${code}`;
      const detail = (out.stderr.trim() || out.stdout.trim()).split('\n').slice(-15).join('\n');
      const shown = [file, ...args].join(' ').slice(0, 300);
      reject(new SandgymError(`${shown} ${why}${detail ? `:\n${detail}` : ''}`));
    });
  });
}
