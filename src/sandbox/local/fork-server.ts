import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants as fsConstants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';

/** What the local provider needs of a started host process: the subset of Node's `ChildProcess` it uses. */
export interface HostChild {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdio: readonly (Readable | Writable | null | undefined)[];
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
  unref(): void;
  once(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (e: Error) => void): this;
}

export interface HostSpawnOptions {
  /** The program's whole environment. */
  env: Record<string, string>;
  /** Per fd from 0: a pipe to us, or /dev/null. */
  stdio: readonly ('pipe' | 'ignore')[];
  /** In a session of its own (its own process group). */
  detached?: boolean;
}

/** Starts a host program, resolving once it runs (rejecting when it could not be started): a `ForkServer`. */
export type SpawnHost = (
  file: string,
  args: readonly string[],
  options: HostSpawnOptions,
) => Promise<HostChild>;

/** The most fields the server parses in one request (MAX_FIELDS in sandgym-helper.c). */
const MAX_FIELDS = 65_536;

const SIGNAL_NAMES = Object.fromEntries(
  Object.entries(osConstants.signals).map(([name, n]) => [n, name as NodeJS.Signals]),
);

/** A process the fork server started: its pipes reopened in this process through /proc. */
class ForkedChild extends EventEmitter implements HostChild {
  pid: number | undefined;
  stdio: (Socket | null)[] = [];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private exited = false;
  private openPipes = 0;
  private refed = true;

  constructor(
    readonly id: string,
    private readonly server: ForkServer,
  ) {
    super();
  }

  get stdin(): Writable | null {
    return this.stdio[0] ?? null;
  }
  get stdout(): Readable | null {
    return this.stdio[1] ?? null;
  }
  get stderr(): Readable | null {
    return this.stdio[2] ?? null;
  }

  /** The server started it; `ends` are its fds of our pipes (-1 for /dev/null). */
  started(pid: number, serverPid: number, ends: number[]): void {
    this.pid = pid;
    for (const [k, fd] of ends.entries()) {
      if (fd < 0) {
        this.stdio.push(null);
        continue;
      }
      const flags = (k === 0 ? fsConstants.O_WRONLY : fsConstants.O_RDONLY) | fsConstants.O_NONBLOCK;
      let socket: Socket;
      try {
        socket = new Socket({
          fd: openSync(`/proc/${serverPid}/fd/${fd}`, flags),
          readable: k !== 0,
          writable: k === 0,
        });
      } catch (e) {
        for (const s of this.stdio) s?.destroy();
        throw e;
      }
      this.openPipes++;
      socket.once('close', () => {
        if (--this.openPipes === 0) this.maybeClose();
      });
      this.stdio.push(socket);
    }
  }

  /** Emitted a turn later: the caller awaiting `started` in the same batch of replies must see it. */
  ended(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    setImmediate(() => {
      this.exitCode = code;
      this.signalCode = signal;
      this.emit('exit', code, signal);
      this.maybeClose();
    });
  }

  /** After it started, the server died: its exit will never be reported. */
  lost(e: Error): void {
    this.exited = true;
    if (this.listenerCount('error') > 0) this.emit('error', e);
  }

  private maybeClose(): void {
    if ((this.exitCode !== null || this.signalCode !== null) && this.openPipes === 0)
      this.emit('close', this.exitCode, this.signalCode);
  }

  get keepsAlive(): boolean {
    return this.refed && !this.exited;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.pid === undefined || this.exited) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  unref(): void {
    this.refed = false;
    this.server.updateRef();
  }
}

/**
 * Starts host programs through `sandgym-helper spawner` (see helper/sandgym-helper.c). A spawn from Node
 * forks this whole process and blocks the event loop until the child has exec'd: milliseconds here, more
 * the larger the heap, on every sandbox start and every exec. The server is a small process whose fork
 * costs a fraction of that. Its pipes are opened here through /proc/<server>/fd, then released there.
 * The server dies with this process, and the sandboxes it started die with it (each start helper has
 * the server's death as its signal to die, bwrap has --die-with-parent).
 */
export class ForkServer {
  private readonly proc: ChildProcess;
  private readonly children = new Map<string, ForkedChild>();
  private readonly pending = new Map<
    string,
    { resolve: (c: HostChild) => void; reject: (e: Error) => void }
  >();
  private nextId = 0;
  private lineBuffer = '';
  private dead: Error | undefined;

  constructor(helper: string) {
    this.proc = spawn(helper, ['spawner'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.proc.stdout!.setEncoding('utf8').on('data', (s: string) => this.onReplies(s));
    this.proc.once('exit', (code, signal) => this.onDeath(new Error(`exited with ${signal ?? code}`)));
    this.proc.once('error', (e) => this.onDeath(e));
    this.proc.stdin!.on('error', () => {});
    this.updateRef();
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  spawn: SpawnHost = (file, args, o) => {
    if (this.dead) return Promise.reject(this.deathError());
    // NUL separates the request's fields: one inside a field would garble the request for the server.
    const strings = [file, ...args, ...Object.entries(o.env).flat()];
    if (strings.some((s) => s.includes('\0')))
      return Promise.reject(
        new TypeError(`a program, argument or environment entry holds a NUL byte: ${file}`),
      );
    // The server reads at most MAX_FIELDS (sandgym-helper.c) fields per request; execve would refuse as many.
    if (strings.length > MAX_FIELDS - 8)
      return Promise.reject(
        new RangeError(`${strings.length} arguments and environment entries are too many`),
      );
    const child = new ForkedChild(String(++this.nextId), this);
    const env = Object.entries(o.env).map(([k, v]) => `${k}=${v}`);
    const stdio = o.stdio.map((s) => (s === 'pipe' ? 'p' : 'i')).join('');
    const fields = [
      'S',
      child.id,
      o.detached ? '1' : '0',
      stdio,
      file,
      String(args.length + 1),
      file,
      ...args,
    ];
    this.children.set(child.id, child);
    this.send([...fields, String(env.length), ...env]);
    this.updateRef();
    return new Promise((resolve, reject) => this.pending.set(child.id, { resolve, reject }));
  };

  /** Ends the server (it exits when its stdin closes); children it started keep running. */
  close(): void {
    this.proc.stdin!.end();
  }

  /** The server keeps this process alive only while a child that does has not exited. */
  updateRef(): void {
    const keep = [...this.children.values()].some((c) => c.keepsAlive);
    for (const handle of [this.proc, this.proc.stdout as Socket, this.proc.stdin as unknown as Socket]) {
      if (keep) handle.ref();
      else handle.unref();
    }
  }

  private send(fields: string[]): void {
    const payload = Buffer.from(`${fields.join('\0')}\0`);
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    payload.copy(frame, 4);
    this.proc.stdin!.write(frame);
  }

  private onReplies(text: string): void {
    const lines = (this.lineBuffer + text).split('\n');
    this.lineBuffer = lines.pop()!;
    for (const line of lines) {
      const [kind, id, ...rest] = line.split(' ');
      const child = this.children.get(id!);
      if (!child) continue;
      const nums = rest.map(Number);
      const waiter = this.pending.get(child.id);
      this.pending.delete(child.id);
      if (kind === 'P') {
        try {
          child.started(nums[0]!, this.proc.pid!, nums.slice(1));
          waiter?.resolve(child);
        } catch (e) {
          // Our fd table is full: the child runs without us, so it must not run at all.
          child.kill('SIGKILL');
          waiter?.reject(e as Error);
        }
        this.send(['R', child.id]);
      } else if (kind === 'X') {
        this.children.delete(child.id);
        const signal = nums[0]! < 0 ? (SIGNAL_NAMES[nums[1]!] ?? 'SIGKILL') : null;
        child.ended(signal ? null : nums[0]!, signal);
      } else if (kind === 'E') {
        this.children.delete(child.id);
        const name =
          Object.entries(osConstants.errno).find(([, n]) => n === nums[0])?.[0] ?? `errno ${nums[0]}`;
        const e = new Error(`the fork server could not start a process: ${name}`) as NodeJS.ErrnoException;
        e.code = name;
        waiter?.reject(e);
      }
    }
    this.updateRef();
  }

  private deathError(): Error {
    return new Error(`sandgym-helper spawner is gone (${this.dead?.message}); its processes were lost`);
  }

  private onDeath(e: Error): void {
    this.dead ??= e;
    for (const waiter of this.pending.values()) waiter.reject(this.deathError());
    for (const child of this.children.values()) child.lost(this.deathError());
    this.pending.clear();
    this.children.clear();
    this.updateRef();
  }
}
