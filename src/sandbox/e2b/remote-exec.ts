import { Readable } from 'node:stream';
import { floodNotice, OutputCapture } from '../output-capture.ts';
import type { ExecResult } from '../types.ts';
import type { EnvdClient } from './envd-client.ts';
import { markedProcess, newExecId } from './process-marker.ts';
import { type EndEvent, shellExitCode } from './process-messages.ts';
import { RemoteProcess } from './remote-process.ts';

/** How long after the client's deadline the server's own deadline (Connect-Timeout-Ms) kills it. */
const SERVER_DEADLINE_SLACK_MS = 5000;
/** After a kill, how long the end event may take before the stream is dropped. */
const KILL_GRACE_MS = 5000;
const STDIN_CHUNK_BYTES = 256 * 1024;

export interface RemoteExecParams {
  envd: EnvdClient;
  argv: readonly string[];
  cwd: string | undefined;
  env: Record<string, string> | undefined;
  stdin: string | Uint8Array | Readable | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
  /** Signals every process of the command's tree (see process-marker.ts). */
  signalTree: (execId: string, signal: NodeJS.Signals) => Promise<void>;
  /** Turns a failure of the stream itself into the sandbox's error. */
  streamFailure: (e: unknown) => Error;
}

/**
 * Runs one command to completion through envd, as data: its exit code (128+N when signal N killed it),
 * 124 and `timedOut` at the deadline, output cut to the cap, a flood killed with a notice. The deadline
 * is the client's own timer (the server gets a later one as a backstop); at it, the command's whole
 * tree is killed. An abort kills the tree and rejects with the signal's reason. Only a broken sandbox
 * or connection throws.
 */
export async function runRemoteExec(p: RemoteExecParams): Promise<ExecResult> {
  p.signal?.throwIfAborted();
  const startedMs = performance.now();
  const execId = newExecId();
  const proc = await RemoteProcess.start(p.envd, markedProcess(execId, p), {
    stdin: p.stdin !== undefined,
    deadlineMs: p.timeoutMs + SERVER_DEADLINE_SLACK_MS,
    signal: p.signal,
  }).catch((e: unknown) => {
    throw p.signal?.aborted ? p.signal.reason : p.streamFailure(e);
  });
  const capture = new OutputCapture(p.maxOutputBytes);
  let reason: 'timeout' | 'flood' | 'abort' | undefined;
  let killing: Promise<void> | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const kill = (why: NonNullable<typeof reason>) => {
    reason ??= why;
    killing ??= (async () => {
      await proc.signal('SIGKILL').catch(() => {});
      await p.signalTree(execId, 'SIGKILL').catch(() => {});
      graceTimer = setTimeout(() => proc.abort(), KILL_GRACE_MS);
    })();
  };
  const timer = setTimeout(() => kill('timeout'), p.timeoutMs);
  const onAbort = () => {
    kill('abort');
    proc.abort();
  };
  p.signal?.addEventListener('abort', onAbort, { once: true });
  if (p.stdin !== undefined) void feedStdin(proc, p.stdin);
  let end: EndEvent | undefined;
  try {
    for await (const event of proc.output()) {
      if (event.type === 'end') end = event;
      else {
        capture.push(event.stream === 'stderr' ? 'stderr' : 'stdout', event.bytes);
        if (capture.flooded) kill('flood');
      }
    }
  } catch (e) {
    // After a kill, the stream may end in a deadline error or be dropped by the grace timer.
    if (reason === undefined) throw p.streamFailure(e);
  } finally {
    clearTimeout(timer);
    p.signal?.removeEventListener('abort', onAbort);
    await killing;
    clearTimeout(graceTimer);
    if (reason !== undefined) proc.abort();
  }
  if (reason === 'abort') throw p.signal?.reason;
  if (!end && reason === undefined)
    throw p.streamFailure(new Error('the command ended without an end event'));
  const out = capture.result();
  const flooded = reason === 'flood';
  return {
    exitCode: reason === 'timeout' ? 124 : end ? shellExitCode(end) : 137,
    stdout: out.stdout,
    stderr: flooded ? out.stderr + floodNotice(p.maxOutputBytes) : out.stderr,
    timedOut: reason === 'timeout',
    truncated: out.truncated || flooded,
    durationMs: Math.round(performance.now() - startedMs),
  };
}

/**
 * Writes `data` to the command's stdin in chunks, then closes it. A command that exits without reading
 * its input makes the calls fail: that is its business, not an error.
 */
async function feedStdin(proc: RemoteProcess, data: string | Uint8Array | Readable): Promise<void> {
  try {
    if (data instanceof Readable) {
      for await (const chunk of data) {
        await proc.sendInput(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      }
    } else {
      const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
      for (let at = 0; at < bytes.length; at += STDIN_CHUNK_BYTES) {
        await proc.sendInput(bytes.subarray(at, at + STDIN_CHUNK_BYTES));
      }
    }
    await proc.closeStdin();
  } catch {
    if (data instanceof Readable) data.destroy();
  }
}
