import { constants } from 'node:os';
import { Readable } from 'node:stream';
import { floodNotice, OutputCapture } from '../output-capture.ts';
import type { ExecResult } from '../types.ts';
import { type EnterParams, enterSandbox, killEntered, startFailure } from './enter-sandbox.ts';
import type { HostChild } from './fork-server.ts';

export interface RunExecParams extends Omit<EnterParams, 'stdin'> {
  stdin: string | Uint8Array | Readable | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
}

/**
 * After the command exits, how long its output pipes may stay open (held by a background child) before
 * the result is returned without them. The background process keeps running in the sandbox.
 */
const PIPE_GRACE_MS = 100;

export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

/**
 * Runs one command to completion under its deadline and output cap. What the command does is data:
 * exit 124 and `timedOut` at the deadline, 128+N when killed by signal N; a flood of output beyond the
 * cap's flood limit gets the whole tree killed and a notice on stderr. An abort kills the tree and
 * rejects with the signal's reason.
 */
export async function runExec(p: RunExecParams): Promise<ExecResult> {
  p.signal?.throwIfAborted();
  const startedMs = performance.now();
  let child: Awaited<ReturnType<typeof enterSandbox>>;
  try {
    child = await enterSandbox({ ...p, stdin: p.stdin === undefined ? 'ignore' : 'pipe' });
  } catch (e) {
    p.group.release();
    throw e;
  }
  const capture = new OutputCapture(p.maxOutputBytes);
  let reason: 'timeout' | 'flood' | 'abort' | undefined;
  let killing: Promise<void> | undefined;
  const killTree = (why: NonNullable<typeof reason>) => {
    reason ??= why;
    killing ??= killEntered(child, p.group);
  };
  for (const name of ['stdout', 'stderr'] as const) {
    child[name]!.on('data', (chunk: Buffer) => {
      capture.push(name, chunk);
      if (capture.flooded) killTree('flood');
    });
  }
  feedStdin(child.stdin, p.stdin);
  const timer = setTimeout(() => killTree('timeout'), p.timeoutMs);
  const onAbort = () => killTree('abort');
  p.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once('error', (e) => reject(startFailure(p.sandboxId, e)));
        child.once('exit', (code, signal) => resolve({ code, signal }));
      },
    );
    await pipesClosed(child, PIPE_GRACE_MS);
    await killing;
    if (reason === 'abort') throw p.signal?.reason;
    const out = capture.result();
    const flooded = reason === 'flood';
    return {
      exitCode: reason === 'timeout' ? 124 : exitCodeOf(exit.code, exit.signal),
      stdout: out.stdout,
      stderr: flooded ? out.stderr + floodNotice(p.maxOutputBytes) : out.stderr,
      timedOut: reason === 'timeout',
      truncated: out.truncated || flooded,
      durationMs: Math.round(performance.now() - startedMs),
    };
  } finally {
    clearTimeout(timer);
    p.signal?.removeEventListener('abort', onAbort);
    p.group.release();
  }
}

function feedStdin(stdin: NodeJS.WritableStream | null, data: RunExecParams['stdin']): void {
  if (!stdin || data === undefined) return;
  // A command that exits without reading its input closes the pipe: that is its business, not an error.
  (stdin as NodeJS.WritableStream & { on(e: 'error', f: () => void): void }).on('error', () => {});
  if (data instanceof Readable) data.pipe(stdin);
  else stdin.end(typeof data === 'string' ? data : Buffer.from(data));
}

/**
 * Resolves when stdout and stderr have both closed, or once they have been quiet for `graceMs` (a
 * background child holds them), closing them then. "Quiet" is judged after an event-loop turn that
 * includes a poll for I/O: on a loaded host the grace timer can fire before output already in the pipe
 * was read, and destroying the pipe then would lose it. A writer that never goes quiet is cut off after
 * 20 graces.
 */
function pipesClosed(child: HostChild, graceMs: number): Promise<void> {
  const pipes = [child.stdout!, child.stderr!].filter((s) => !s.closed);
  if (pipes.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let open = pipes.length;
    let sawData = false;
    let timer: NodeJS.Timeout | undefined;
    // A background child that keeps writing must not hold the result forever.
    const giveUpAt = performance.now() + graceMs * 20;
    const onData = () => {
      sawData = true;
    };
    const finish = () => {
      clearTimeout(timer);
      for (const s of pipes) s.off('data', onData);
      resolve();
    };
    const check = () =>
      setImmediate(() => {
        if (open === 0) return;
        if (sawData && performance.now() < giveUpAt) {
          sawData = false;
          timer = setTimeout(check, graceMs);
          return;
        }
        for (const s of pipes) s.destroy();
        finish();
      });
    for (const s of pipes) {
      s.on('data', onData);
      s.once('close', () => {
        if (--open === 0) finish();
      });
    }
    timer = setTimeout(check, graceMs);
  });
}
