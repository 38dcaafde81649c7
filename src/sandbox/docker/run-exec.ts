import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxError } from '../../errors.ts';
import { floodNotice, OutputCapture } from '../output-capture.ts';
import type { ExecResult } from '../types.ts';
import { type ExecTarget, execExitCode, killProcessTree, openExec, socketClosed } from './exec-session.ts';
import { createExecStreamParser } from './parse-exec-stream.ts';
import { newExecMarker } from './process-tree.ts';

export interface ExecRequest {
  argv: string[];
  /** `K=v` lines; the sandbox's own env is already on the container. */
  env: string[];
  cwd?: string | undefined;
  stdin?: string | Uint8Array | Readable | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
}

/** Exit code of a command that hit its deadline, as coreutils `timeout` reports it. */
export const TIMEOUT_EXIT_CODE = 124;
/** After the kill helper has run, how long the output stream may take to close before we cut it. */
const CLOSE_GRACE_MS = 3000;

/**
 * Runs one command to completion. Exec is data: the exit code, the capped output, and whether the
 * deadline hit all come back in the result. On the deadline, on an abort and on an output flood the
 * command's whole process tree is killed (see process-tree.ts); an abort then rejects with the signal's
 * reason. Throws only when the sandbox is closed or died.
 */
export async function runExec(target: ExecTarget, request: ExecRequest): Promise<ExecResult> {
  // Stdin that is a stream cannot be given twice; a start failure then stays the command's result.
  const attempts = isReadable(request.stdin) ? 1 : START_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    const result = await runExecOnce(target, request);
    if (attempt >= attempts || !engineCouldNotStart(result)) return result;
    await sleep(100 * 2 ** attempt);
  }
}

const START_ATTEMPTS = 4;

/**
 * The engine's runtime failed to start the command's process (it never ran): with a sandbox at its
 * process limit (a fork bomb left in the background), runc's exec helper intermittently dies before
 * the command starts and the engine reports exit 126 with this message. That is not the command's
 * result; trying again is. "executable file not found" and the like are results, and are not matched.
 */
export function engineCouldNotStart(r: ExecResult): boolean {
  return (
    r.exitCode === 126 &&
    r.stdout === '' &&
    /^OCI runtime exec failed: .*(read init-p|connection reset by peer|resource temporarily unavailable)/.test(
      r.stderr,
    )
  );
}

function isReadable(stdin: ExecRequest['stdin']): stdin is Readable {
  return typeof stdin === 'object' && stdin !== null && 'pipe' in stdin;
}

async function runExecOnce(target: ExecTarget, request: ExecRequest): Promise<ExecResult> {
  const started = performance.now();
  const marker = newExecMarker();
  const capture = new OutputCapture(request.maxOutputBytes);
  const { exec, socket } = await openExec(
    target,
    { argv: request.argv, env: request.env, cwd: request.cwd, stdin: request.stdin !== undefined, marker },
    request.signal,
  );
  const closed = socketClosed(socket);

  const stopper = createStopper(target, marker);
  const stop = stopper.stop;

  const parse = createExecStreamParser((stream, payload) => {
    capture.push(stream, payload);
    if (capture.flooded) stop('flood');
  });
  socket.on('data', (chunk: Buffer) => {
    try {
      parse(chunk);
    } catch (e) {
      capture.push('stderr', Buffer.from(`\n[sandgym: ${(e as Error).message}]\n`));
      socket.destroy();
    }
  });
  writeStdin(socket, request.stdin);

  const remainingMs = Math.max(0, request.timeoutMs - (performance.now() - started));
  const timer = setTimeout(() => stop('timeout'), remainingMs);
  const onAbort = () => stop('abort');
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) stop('abort');
  try {
    await Promise.race([closed, stopper.gaveUp]);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    socket.destroy();
  }

  const output = capture.result();
  const stopReason = stopper.reason();
  if (stopReason === 'abort') throw request.signal?.reason;
  const exitCode = stopReason === 'timeout' ? TIMEOUT_EXIT_CODE : await execExitCode(target, exec);
  if (exitCode === undefined) {
    await target.assertUsable();
    throw new SandboxError(target.sandboxId, 'the Docker engine lost track of a command; run it again', {
      isRetryable: true,
    });
  }
  // A SIGKILL we did not send: the OOM killer (data) or the container dying (not data) — find out which.
  if (stopReason === undefined && exitCode === 137) await target.assertUsable();
  return {
    exitCode,
    stdout: output.stdout,
    stderr: stopReason === 'flood' ? output.stderr + floodNotice(request.maxOutputBytes) : output.stderr,
    timedOut: stopReason === 'timeout',
    truncated: output.truncated || stopReason === 'flood',
    durationMs: Math.round(performance.now() - started),
  };
}

type StopReason = 'timeout' | 'abort' | 'flood';

/**
 * Ends a command once, for the first reason that comes: kills its process tree, then gives its output
 * stream a grace period to close (`gaveUp` resolves after it, in case the engine never closes it).
 */
function createStopper(target: ExecTarget, marker: string) {
  let reason: StopReason | undefined;
  let giveUp: () => void = () => {};
  const gaveUp = new Promise<void>((resolve) => {
    giveUp = resolve;
  });
  return {
    gaveUp,
    reason: () => reason,
    stop(why: StopReason) {
      if (reason) return;
      reason = why;
      void killProcessTree(target, marker).finally(() => setTimeout(giveUp, CLOSE_GRACE_MS).unref());
    },
  };
}

/** Sends the command its stdin, then closes our side so that the command reads end-of-file. */
function writeStdin(socket: NodeJS.WritableStream & { end(): void }, stdin: ExecRequest['stdin']): void {
  if (stdin === undefined) return;
  if (typeof stdin === 'string' || stdin instanceof Uint8Array) {
    socket.write(stdin);
    socket.end();
    return;
  }
  stdin.on('error', () => socket.end());
  stdin.pipe(socket);
}
