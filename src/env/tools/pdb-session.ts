import { SandboxError } from '../../errors.ts';
import type { Sandbox, SandboxProcess } from '../../sandbox/index.ts';
import { execLine, shellArgv } from './shell.ts';

export const PDB_PROMPT = '(Pdb) ';
const PID_MARKER = 'sandgym-pdb-pid';
const PID_LINE = new RegExp(`^${PID_MARKER} (\\d+)$`);
/** The pid line is short; a first line longer than this is not one. */
const MAX_PID_LINE_CHARS = 256;
/** pdb's question before `clear` with no argument deletes every breakpoint. */
export const CLEAR_ALL_PROMPT = 'Clear all breaks? ';

/** Characters kept from each end of one reply; a flooding program cannot fill memory. */
const KEEP_CHARS = 64 * 1024;
/** How long an interrupted program gets to come back to the prompt. */
const INTERRUPT_GRACE_MS = 3000;
/** How long a killed process may take to be reported gone before the sandbox counts as broken. */
const KILL_WAIT_MS = 10_000;

/** What pdb wrote in answer to one command, up to the next prompt. */
export interface PdbReply {
  /** The output, the final prompt removed; cut in the middle when it was huge. */
  output: string;
  /** What ended the wait: the pdb prompt, pdb's clear-all question, the process exiting, or the deadline. */
  end: 'prompt' | 'confirm' | 'exited' | 'timeout';
  /** The exit code when the process ended. */
  exitCode?: number;
}

/**
 * One live pdb process in a sandbox, spoken to through pipes: each command is a line on stdin, its reply
 * everything stdout and stderr carry (in arrival order) until pdb prints its prompt again. Without a
 * terminal pdb still prompts: `input()` writes the prompt to stdout and flushes it.
 */
export class PdbSession {
  private buffer = new ReplyBuffer();
  private exit: { exitCode: number } | undefined;
  private wake: (() => void) | undefined;
  /** The debugged process's pid inside the sandbox, from the launcher's first line. */
  private pid: number | undefined;
  private firstLine = '';

  private constructor(
    private readonly sandbox: Sandbox,
    private readonly process: SandboxProcess,
  ) {
    const onData = (chunk: string) => {
      this.buffer.append(chunk);
      this.wake?.();
    };
    process.stdout.setEncoding('utf8');
    process.stderr.setEncoding('utf8');
    process.stdout.on('data', (chunk: string) => {
      if (this.pid === undefined) {
        this.firstLine += chunk;
        const newline = this.firstLine.indexOf('\n');
        if (newline === -1 && this.firstLine.length <= MAX_PID_LINE_CHARS) return;
        // No pid line where one should be (the sandbox's python may be anything): its output is output,
        // kept under the reply's bounds, not gathered here without end.
        const line = newline === -1 ? '' : this.firstLine.slice(0, newline);
        this.pid = Number(PID_LINE.exec(line)?.[1] ?? Number.NaN);
        chunk = newline === -1 ? this.firstLine : this.firstLine.slice(newline + 1);
      }
      onData(chunk);
    });
    process.stderr.on('data', onData);
    // A write after the process died fails with EPIPE; the exit is reported by `exited`, not by a crash.
    process.stdin.on('error', () => {});
    void process.exited.then(({ exitCode }) => {
      this.exit = { exitCode };
      this.wake?.();
    });
  }

  /**
   * Starts `argv` after the task's `setup` lines. The launcher shell prints its pid and then `exec`s the
   * program, so the pid is the debugged process's, for interrupting it from inside the sandbox.
   */
  static async start(
    sandbox: Sandbox,
    setup: string,
    argv: readonly string[],
    options: { cwd: string; env: Record<string, string> },
  ): Promise<PdbSession> {
    const process = await sandbox.spawn(
      shellArgv(setup, `echo "${PID_MARKER} $$"\n${execLine(argv)}`),
      options,
    );
    return new PdbSession(sandbox, process);
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Sends one line and reads the reply. */
  async send(line: string, timeoutMs: number): Promise<PdbReply> {
    if (!this.alive)
      throw new SandboxError(this.sandbox.id, 'pdb session: sent a command to a process that ended');
    this.process.stdin.write(`${line}\n`);
    return this.read(timeoutMs);
  }

  /**
   * Reads until the prompt, the process's end, or the deadline. At the deadline the program is interrupted
   * (SIGINT: pdb stops it at the next line and prompts again); if it does not come back, it is killed.
   */
  async read(timeoutMs: number): Promise<PdbReply> {
    const first = await this.waitForEnd(timeoutMs);
    if (first !== 'timeout') return this.take(first);
    await this.interrupt();
    const second = await this.waitForEnd(INTERRUPT_GRACE_MS);
    if (second !== 'timeout') return { ...this.take(second), end: 'timeout' };
    await this.close();
    return { ...this.take('exited'), end: 'timeout' };
  }

  /** SIGINT to the debugged process alone, sent from inside the sandbox: pdb then stops at the next line. */
  private async interrupt(): Promise<void> {
    if (this.pid === undefined || Number.isNaN(this.pid) || !this.alive) return;
    await this.sandbox.exec(['kill', '-INT', String(this.pid)], { timeoutMs: INTERRUPT_GRACE_MS });
  }

  private waitForEnd(timeoutMs: number): Promise<PdbReply['end']> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const end = this.buffer.endsWith(PDB_PROMPT)
          ? 'prompt'
          : this.buffer.endsWith(CLEAR_ALL_PROMPT)
            ? 'confirm'
            : this.exit
              ? 'exited'
              : undefined;
        if (!end) return false;
        finish(end);
        return true;
      };
      const finish = (end: PdbReply['end']) => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(end);
      };
      const timer = setTimeout(() => finish('timeout'), Math.max(0, timeoutMs));
      this.wake = check;
      check();
    });
  }

  private take(end: PdbReply['end']): PdbReply {
    let output = this.buffer.text();
    this.buffer = new ReplyBuffer();
    if (end === 'prompt' && output.endsWith(PDB_PROMPT)) output = output.slice(0, -PDB_PROMPT.length);
    const reply: PdbReply = { output: output.trimEnd(), end };
    if (this.exit) reply.exitCode = this.exit.exitCode;
    return reply;
  }

  /** Kills the process tree and waits for it to be gone. Idempotent. */
  async close(): Promise<void> {
    if (this.alive) this.process.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), KILL_WAIT_MS);
    });
    const outcome = await Promise.race([this.process.exited, stuck]);
    clearTimeout(timer);
    if (outcome === 'stuck') {
      throw new SandboxError(
        this.sandbox.id,
        `pdb session: the process survived SIGKILL for ${KILL_WAIT_MS} ms`,
      );
    }
    this.exit ??= { exitCode: outcome.exitCode };
  }
}

/** A reply's text, keeping only its head and its tail once it grows past twice `KEEP_CHARS`. */
class ReplyBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  append(chunk: string): void {
    if (this.head.length < KEEP_CHARS) {
      const room = KEEP_CHARS - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    this.tail += chunk;
    if (this.tail.length > KEEP_CHARS) {
      this.dropped += this.tail.length - KEEP_CHARS;
      this.tail = this.tail.slice(this.tail.length - KEEP_CHARS);
    }
  }

  endsWith(s: string): boolean {
    const end = this.tail.length >= s.length ? this.tail : this.head.slice(-s.length) + this.tail;
    return end.endsWith(s);
  }

  text(): string {
    const marker = this.dropped > 0 ? `\n[… ${this.dropped} characters of output cut …]\n` : '';
    return this.head + marker + this.tail;
  }
}
