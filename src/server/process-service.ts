import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isConfigError } from '../errors.ts';
import {
  objectField,
  type ProcessConfig,
  parseProcessSelector,
  parseSignal,
  RpcError,
} from '../sandbox/e2b/index.ts';
import { shellQuote } from '../tasks/shell-quote.ts';
import { readStreamRequest, readUnaryRequest, requestDeadlineMs, sendUnary } from './connect-server.ts';
import { accountEnv, asAccount, requestUser, sandboxAccount } from './envd-user.ts';
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
 * reach the process's whole tree (the providers kill by tree). A PTY process runs under `script` (see
 * ptyArgv) and is resized by Update; there is no client-streamed input (StreamInput).
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
    case 'Update':
      await resize(served, message);
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
  const pty = message.pty === undefined || message.pty === null ? undefined : ptySize(message.pty);
  const config = parseConfig(objectField(message, 'process'));
  const tag = typeof message.tag === 'string' ? message.tag : undefined;
  // envd: an absent stdin flag means a pipe; false means /dev/null, i.e. end of input at once. A PTY
  // always takes input.
  const stdinOpen = pty !== undefined || message.stdin !== false;
  const user = requestUser(req);
  const account =
    user === undefined || user === 'root' ? undefined : await sandboxAccount(served.sandbox, user);
  const argv = [config.cmd, ...(config.args ?? [])];
  const ttyFile = pty ? `/tmp/.sandgym-pty-${randomBytes(8).toString('hex')}` : undefined;
  const started = pty && ttyFile ? ptyArgv(argv, pty, ttyFile) : argv;
  const cwd = config.cwd ?? account?.home;
  const proc = await served.sandbox
    .spawn(account ? asAccount(started, account) : started, {
      ...(cwd !== undefined && { cwd }),
      env: { ...(account && accountEnv(account)), ...(pty && { TERM: 'xterm-256color' }), ...config.envs },
      stdin: stdinOpen,
    })
    .catch((e: unknown) => {
      throw isConfigError(e)
        ? new RpcError('invalid_argument', e.message)
        : new RpcError('unavailable', `cannot start the process: ${(e as Error).message}`);
    });
  proc.stdin.on('error', () => {});
  const entry = served.processes.add(proc, config, tag, stdinOpen, ttyFile);
  void proc.exited.finally(() => {
    served.processes.remove(entry.pid);
    if (ttyFile) void served.sandbox.exec(['rm', '-f', ttyFile], { timeoutMs: 30_000 }).catch(() => {});
  });
  await streamProcess(entry, res, { deadlineMs, keepaliveMs: keepaliveMs(req) });
}

/** envd's `pty.size`: columns and rows of the terminal. */
function ptySize(value: unknown): { cols: number; rows: number } {
  const size = objectField(value, 'size');
  const cols = Number(size.cols);
  const rows = Number(size.rows);
  for (const [name, n] of [
    ['cols', cols],
    ['rows', rows],
  ] as const) {
    if (!Number.isInteger(n) || n < 1 || n > 10_000) {
      throw new RpcError('invalid_argument', `pty.size.${name} must be a whole number from 1 to 10000`);
    }
  }
  return { cols, rows };
}

/**
 * A command on a terminal: util-linux `script` (in every Debian image) gives it a pseudo-terminal of
 * the asked size, copies our input to it and its output to us, and exits as the command does.
 */
function ptyArgv(argv: string[], size: { cols: number; rows: number }, ttyFile: string): string[] {
  // The terminal's name goes to ttyFile, for resizes (Update), after the first size is set: a resize
  // waits for the name, so it cannot be undone by the first size.
  const command =
    `stty cols ${size.cols} rows ${size.rows} 2>/dev/null; tty > ${ttyFile}; ` +
    `exec ${argv.map(shellQuote).join(' ')}`;
  return ['script', '-q', '-f', '-e', '-c', command, '/dev/null'];
}

/** Update (resize): the terminal's new size, which also sends the command SIGWINCH. */
async function resize(served: ServedSandbox, message: Record<string, unknown>): Promise<void> {
  const p = find(served, message);
  if (!p.ttyFile) throw new RpcError('invalid_argument', `process ${p.pid} has no PTY to resize`);
  const { cols, rows } = ptySize(message.pty);
  const r = await served.sandbox.exec(
    // A resize right after the start may come before the command has written its terminal's name.
    [
      '/bin/sh',
      '-c',
      'for i in $(seq 100); do [ -s "$0" ] && break; sleep 0.05; done; stty -F "$(cat "$0")" cols "$1" rows "$2"',
      p.ttyFile,
      String(cols),
      String(rows),
    ],
    { timeoutMs: 30_000 },
  );
  if (r.exitCode !== 0)
    throw new RpcError('internal', `cannot resize the PTY of process ${p.pid}: ${r.stderr.trim()}`);
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
  const data = p.pty ? input.pty : input.stdin;
  if (typeof data !== 'string') {
    throw new RpcError(
      'invalid_argument',
      p.pty
        ? `process ${p.pid} is a PTY: send input.pty (base64 bytes)`
        : 'input.stdin (base64 bytes) is required',
    );
  }
  if (!p.stdinOpen || p.proc.stdin.writableEnded) {
    throw new RpcError('failed_precondition', `stdin of process ${p.pid} is closed (or was never opened)`);
  }
  const bytes = Buffer.from(data, 'base64');
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
