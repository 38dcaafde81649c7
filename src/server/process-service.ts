import type { IncomingMessage, ServerResponse } from 'node:http';
import { isConfigError } from '../errors.ts';
import {
  objectField,
  type ProcessConfig,
  parseProcessSelector,
  parseSignal,
  RpcError,
} from '../sandbox/e2b/index.ts';
import { readStreamRequest, readUnaryRequest, requestDeadlineMs, sendUnary } from './connect-server.ts';
import { headerValue } from './http-io.ts';
import { streamProcess } from './process-stream.ts';
import type { ServedProcess } from './process-table.ts';
import { resolveSandboxPath } from './sandbox-paths.ts';
import type { ServedSandbox } from './sandbox-registry.ts';

/** Keepalive interval when the client asks none (envd's default is 90 s; ours stays under idle timeouts). */
const DEFAULT_KEEPALIVE_S = 30;
const MAX_KEEPALIVE_S = 60;
/** How long a SendSignal(SIGKILL) waits for the process to be gone before it answers anyway. */
const KILL_WAIT_MS = 10_000;

/**
 * envd's `process.Process` service on the Sandbox contract: Start (streamed), List, SendInput,
 * SendSignal, CloseStdin, and Connect (re-attaching to a running process's output and end). Signals
 * reach the process's whole tree (the providers kill by tree). There is no PTY, and no client-streamed
 * input (StreamInput).
 */
export async function processCall(
  served: ServedSandbox,
  method: string,
  req: IncomingMessage,
  res: ServerResponse,
  maxMessageBytes: number,
): Promise<void> {
  if (method === 'Start') return start(served, req, res, maxMessageBytes);
  if (method === 'Connect') {
    // Reattaching: output from now on, then the end. The call's deadline is the client's to keep.
    const entry = find(served, await readStreamRequest(req, maxMessageBytes));
    return streamProcess(entry, res, { deadlineMs: undefined, keepaliveMs: keepaliveMs(req) });
  }
  const message = await readUnaryRequest(req, maxMessageBytes);
  switch (method) {
    case 'List':
      return sendUnary(res, {
        processes: served.processes.list().map((p) => ({
          config: p.config,
          pid: p.pid,
          ...(p.tag !== undefined && { tag: p.tag }),
        })),
      });
    case 'SendInput':
      await sendInput(find(served, message), message);
      return sendUnary(res, {});
    case 'CloseStdin': {
      const p = find(served, message);
      p.stdinOpen = false;
      p.proc.stdin.end();
      return sendUnary(res, {});
    }
    case 'SendSignal': {
      const { proc } = find(served, message);
      const signal = parseSignal(message.signal);
      proc.kill(signal);
      // A SIGKILL is answered once the process is gone, so that a client's kill() returning means dead.
      if (signal === 'SIGKILL') await exitedWithin(proc, KILL_WAIT_MS);
      return sendUnary(res, {});
    }
    default:
      throw new RpcError(
        'unimplemented',
        `process.Process/${method} is not served by sandgym serve (Start, List, SendInput, SendSignal, ` +
          'CloseStdin are)',
      );
  }
}

async function start(
  served: ServedSandbox,
  req: IncomingMessage,
  res: ServerResponse,
  maxMessageBytes: number,
): Promise<void> {
  const message = await readStreamRequest(req, maxMessageBytes);
  const deadlineMs = requestDeadlineMs(req);
  if (message.pty !== undefined && message.pty !== null) {
    throw new RpcError('unimplemented', 'PTY processes are not supported by sandgym serve');
  }
  const config = parseConfig(objectField(message, 'process'));
  const tag = typeof message.tag === 'string' ? message.tag : undefined;
  // envd: an absent stdin flag means a pipe; false means /dev/null, i.e. end of input at once.
  const stdinOpen = message.stdin !== false;
  const proc = await served.sandbox
    .spawn([config.cmd, ...(config.args ?? [])], {
      ...(config.cwd !== undefined && { cwd: config.cwd }),
      ...(config.envs !== undefined && { env: config.envs }),
      stdin: stdinOpen,
    })
    .catch((e: unknown) => {
      throw isConfigError(e)
        ? new RpcError('invalid_argument', e.message)
        : new RpcError('unavailable', `cannot start the process: ${(e as Error).message}`);
    });
  proc.stdin.on('error', () => {});
  const entry = served.processes.add(proc, config, tag, stdinOpen);
  void proc.exited.finally(() => served.processes.remove(entry.pid));
  await streamProcess(entry, res, { deadlineMs, keepaliveMs: keepaliveMs(req) });
}

function parseConfig(p: Record<string, unknown>): ProcessConfig {
  if (typeof p.cmd !== 'string' || p.cmd === '')
    throw new RpcError('invalid_argument', 'process.cmd is required');
  const args = p.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new RpcError('invalid_argument', 'process.args must be an array of strings');
  }
  const envs = p.envs ?? {};
  if (typeof envs !== 'object' || envs === null || Array.isArray(envs)) {
    throw new RpcError('invalid_argument', 'process.envs must be an object of strings');
  }
  for (const v of Object.values(envs)) {
    if (typeof v !== 'string')
      throw new RpcError('invalid_argument', 'process.envs must be an object of strings');
  }
  let cwd: string | undefined;
  if (p.cwd !== undefined && p.cwd !== null && p.cwd !== '') {
    try {
      cwd = resolveSandboxPath(p.cwd, 'process.cwd');
    } catch (e) {
      throw new RpcError('invalid_argument', (e as Error).message);
    }
  }
  return { cmd: p.cmd, args: args as string[], envs: envs as Record<string, string>, ...(cwd && { cwd }) };
}

function find(served: ServedSandbox, message: Record<string, unknown>): ServedProcess {
  const selector = parseProcessSelector(message.process);
  const found = served.processes.find(selector);
  if (!found)
    throw new RpcError('not_found', `process ${JSON.stringify(selector)} not found (it ended, or never was)`);
  return found;
}

async function sendInput(p: ServedProcess, message: Record<string, unknown>): Promise<void> {
  const input = objectField(message, 'input');
  if (input.pty !== undefined)
    throw new RpcError('unimplemented', 'PTY input is not supported by sandgym serve');
  if (typeof input.stdin !== 'string')
    throw new RpcError('invalid_argument', 'input.stdin (base64 bytes) is required');
  if (!p.stdinOpen || p.proc.stdin.writableEnded) {
    throw new RpcError('failed_precondition', `stdin of process ${p.pid} is closed (or was never opened)`);
  }
  const bytes = Buffer.from(input.stdin, 'base64');
  const written = new Promise<void>((resolve, reject) =>
    p.proc.stdin.write(bytes, (e) =>
      e ? reject(new RpcError('failed_precondition', `stdin of process ${p.pid}: ${e.message}`)) : resolve(),
    ),
  );
  // The answer waits until the bytes are in the pipe: a process that does not read holds its writer back.
  await written;
}

/** The keepalive interval a streaming call asks (Keepalive-Ping-Interval, seconds), in ms. */
export function keepaliveMs(req: IncomingMessage): number {
  const header = headerValue(req, 'keepalive-ping-interval');
  const n = Number(header);
  if (header === undefined || !Number.isInteger(n) || n <= 0) return DEFAULT_KEEPALIVE_S * 1000;
  return Math.min(n, MAX_KEEPALIVE_S) * 1000;
}

async function exitedWithin(proc: ServedProcess['proc'], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([proc.exited.catch(() => {}), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
