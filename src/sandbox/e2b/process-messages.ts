import { constants } from 'node:os';
import { RpcError } from './rpc-error.ts';

/**
 * The messages of envd's `process.Process` service in the proto3 JSON mapping that E2B's SDKs speak:
 * camelCase field names, oneof members as plain fields, bytes as base64, defaults left out. Shapes:
 * spec/envd/process/process.proto in e2b-dev/E2B.
 */
export const ENVD_PORT = 49983;

export interface ProcessConfig {
  cmd: string;
  args?: string[];
  envs?: Record<string, string>;
  cwd?: string;
}

export interface StartRequest {
  process: ProcessConfig;
  /** Whether the process gets a stdin pipe (envd: absent means yes, false means /dev/null). */
  stdin?: boolean;
  tag?: string;
}

/** `{pid}` or `{tag}`: which process a SendInput, SendSignal or CloseStdin is about. */
export type ProcessSelector = { pid: number } | { tag: string };

export interface EndEvent {
  /** The exit status; -1 when the process was killed by a signal (Go's ProcessState.ExitCode). */
  exitCode: number;
  exited: boolean;
  /** Go's ProcessState.String(): "exit status 3", "signal: killed". */
  status: string;
  error?: string;
}

export type ProcessEvent =
  | { type: 'start'; pid: number }
  | { type: 'data'; stream: 'stdout' | 'stderr' | 'pty'; bytes: Buffer }
  | ({ type: 'end' } & EndEvent)
  | { type: 'keepalive' };

/** How Go (and so envd) names the signal that ended a process in `status` ("signal: killed"). */
const GO_SIGNAL_TEXT: Partial<Record<NodeJS.Signals, string>> = {
  SIGHUP: 'hangup',
  SIGINT: 'interrupt',
  SIGQUIT: 'quit',
  SIGILL: 'illegal instruction',
  SIGTRAP: 'trace/breakpoint trap',
  SIGABRT: 'aborted',
  SIGBUS: 'bus error',
  SIGFPE: 'floating point exception',
  SIGKILL: 'killed',
  SIGUSR1: 'user defined signal 1',
  SIGSEGV: 'segmentation fault',
  SIGUSR2: 'user defined signal 2',
  SIGPIPE: 'broken pipe',
  SIGALRM: 'alarm clock',
  SIGTERM: 'terminated',
  SIGXCPU: 'CPU time limit exceeded',
  SIGXFSZ: 'file size limit exceeded',
};

/** The end event envd sends for a process that exited with `exitCode` or was killed by `signal`. */
export function endEventOf(exit: { exitCode: number; signal: NodeJS.Signals | null }): EndEvent {
  if (exit.signal) {
    const status = `signal: ${GO_SIGNAL_TEXT[exit.signal] ?? exit.signal}`;
    return { exitCode: -1, exited: false, status, error: status };
  }
  const status = `exit status ${exit.exitCode}`;
  return exit.exitCode === 0
    ? { exitCode: 0, exited: true, status }
    : { exitCode: exit.exitCode, exited: true, status, error: status };
}

/** The shell's view of an end event: the exit status, or 128+N when signal N killed the process. */
export function shellExitCode(end: EndEvent): number {
  if (end.exited || end.exitCode >= 0) return end.exitCode;
  const text = /^signal: (.+)$/.exec(end.status)?.[1];
  const entry = Object.entries(GO_SIGNAL_TEXT).find(([name, t]) => t === text || name === text);
  const number = entry ? constants.signals[entry[0] as NodeJS.Signals] : undefined;
  return 128 + (number ?? 0);
}

export function processEventJson(event: ProcessEvent): { event: Record<string, unknown> } {
  switch (event.type) {
    case 'start':
      return { event: { start: { pid: event.pid } } };
    case 'data':
      return { event: { data: { [event.stream]: event.bytes.toString('base64') } } };
    case 'end': {
      const { type: _, ...end } = event;
      return { event: { end } };
    }
    case 'keepalive':
      return { event: { keepalive: {} } };
  }
}

/** Reads one StartResponse message (`{event: {start|data|end|keepalive}}`). */
export function parseProcessEvent(message: unknown): ProcessEvent {
  const event = objectField(message, 'event');
  if (event.start !== undefined) {
    return { type: 'start', pid: uint(objectField(event, 'start').pid ?? 0, 'start.pid') };
  }
  if (event.data !== undefined) {
    const data = objectField(event, 'data');
    for (const stream of ['stdout', 'stderr', 'pty'] as const) {
      if (typeof data[stream] === 'string') {
        return { type: 'data', stream, bytes: Buffer.from(data[stream], 'base64') };
      }
    }
    return { type: 'data', stream: 'stdout', bytes: Buffer.alloc(0) };
  }
  if (event.end !== undefined) {
    const end = objectField(event, 'end');
    const exitCode = end.exitCode ?? end.exit_code ?? 0;
    if (typeof exitCode !== 'number' || !Number.isInteger(exitCode)) throw malformed('end.exitCode');
    return {
      type: 'end',
      exitCode,
      exited: end.exited === true,
      status: typeof end.status === 'string' ? end.status : '',
      ...(typeof end.error === 'string' && { error: end.error }),
    };
  }
  if (event.keepalive !== undefined) return { type: 'keepalive' };
  throw malformed('event (none of start, data, end, keepalive)');
}

/** Reads a ProcessSelector: `{pid: 12}` or `{tag: "x"}`. */
export function parseProcessSelector(value: unknown): ProcessSelector {
  if (typeof value === 'object' && value !== null) {
    const { pid, tag } = value as { pid?: unknown; tag?: unknown };
    if (pid !== undefined) return { pid: uint(pid, 'process.pid') };
    if (typeof tag === 'string') return { tag };
  }
  throw new RpcError('invalid_argument', 'the request must name a process: {"process": {"pid": <pid>}}');
}

/** SendSignal's signal: the enum's name or number, as proto3 JSON allows. */
export function parseSignal(value: unknown): 'SIGKILL' | 'SIGTERM' {
  if (value === 'SIGNAL_SIGKILL' || value === 9) return 'SIGKILL';
  if (value === 'SIGNAL_SIGTERM' || value === 15) return 'SIGTERM';
  throw new RpcError(
    'unimplemented',
    `invalid signal ${JSON.stringify(value)}: envd sends SIGKILL or SIGTERM`,
  );
}

export function objectField(value: unknown, name: string): Record<string, unknown> {
  const field =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  if (typeof field !== 'object' || field === null || Array.isArray(field)) throw malformed(name);
  return field as Record<string, unknown>;
}

function uint(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw malformed(name);
  return value;
}

function malformed(field: string): RpcError {
  return new RpcError('invalid_argument', `malformed envd process message: bad or missing ${field}`);
}
