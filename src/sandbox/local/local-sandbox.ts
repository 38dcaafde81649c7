import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxError } from '../../errors.ts';
import { assertForkCount, checkEnv, readFileCap, toArgv } from '../call-checks.ts';
import { closedStdin } from '../closed-stdin.ts';
import { processStartTicks } from '../owner.ts';
import type {
  DownloadDirOptions,
  ExecOptions,
  ExecResult,
  ReadFileOptions,
  Sandbox,
  SandboxLimits,
  SandboxProcess,
  SpawnOptions,
} from '../types.ts';
import { enterSandbox, killEntered, startFailure } from './enter-sandbox.ts';
import {
  downloadDirectory,
  type FileOpsHost,
  readSandboxFile,
  sandboxPath,
  uploadDirectory,
  writeSandboxFile,
} from './file-ops.ts';
import type { HostChild, SpawnHost } from './fork-server.ts';
import type { HostTools } from './host-tools.ts';
import type { LaunchedInit } from './launch-init.ts';
import type { ExecGroup, SandboxLimitsHandle } from './limit-driver.ts';
import { type RawCommandParams, type RawResult, runRawCommand } from './raw-command.ts';
import { exitCodeOf, runExec } from './run-exec.ts';

const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
/** Node's timers cannot wait longer (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long close() waits for the sandbox's processes to exit after it killed them. */
const SHUTDOWN_WAIT_MS = 10_000;

/**
 * The exec helper's own failure to fork inside the sandbox (it exits 125 with its name): the sandbox was
 * out of processes or memory, and the command never started.
 */
function helperCouldNotFork(r: ExecResult): boolean {
  return r.exitCode === 125 && r.stderr.startsWith('sandgym-helper: fork:');
}

/** What a sandbox asks of the provider that made it. */
export interface SandboxOwner {
  fork(parent: LocalSandbox, n: number): Promise<LocalSandbox[]>;
  snapshot(parent: LocalSandbox, image: string): Promise<void>;
  /** Removes the cgroups and directory of a sandbox whose processes are gone, in the background. */
  release(sandbox: LocalSandbox): void;
}

export interface LocalSandboxInit {
  id: string;
  image: string;
  /** Lower layers, topmost first. */
  layers: readonly string[];
  labels: Record<string, string>;
  limits: SandboxLimits;
  /** The environment every exec starts from (defaults, image, sandbox). */
  env: Record<string, string>;
  workdir: string;
  network: boolean;
  dir: string;
  tools: HostTools;
  spawn: SpawnHost;
  limitsHandle: SandboxLimitsHandle;
  launched: LaunchedInit;
  /** pasta, for a sandbox with network access. */
  pasta?: { pid: number; startTicks: number } | undefined;
  owner: SandboxOwner;
  ttlMs: number;
}

/**
 * A running local sandbox: catatonit as pid 1 in its own namespaces (a user namespace whose root is an
 * unprivileged host uid of the sandbox's own), over a private overlay.
 */
export class LocalSandbox implements Sandbox, FileOpsHost {
  readonly provider = 'local';
  readonly id: string;
  readonly image: string;
  readonly layers: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly limits: Readonly<SandboxLimits>;
  readonly env: Readonly<Record<string, string>>;
  readonly workdir: string;
  readonly network: boolean;
  readonly dir: string;
  readonly limitsHandle: SandboxLimitsHandle;
  private readonly tools: HostTools;
  private readonly spawnHost: SpawnHost;
  private readonly init: { pid: number; startTicks: number };
  private readonly pasta: { pid: number; startTicks: number } | undefined;
  readonly holder: HostChild;
  /** Host uid (and gid) of root inside; the sandbox's ids 0..65535 are host ids uidBase.. */
  readonly uidBase: number;
  private readonly holderExited: Promise<void>;
  private readonly owner: SandboxOwner;
  private execCount = 0;
  /** Groups of finished execs that still hold processes (background jobs, or what a fork bomb left). */
  private readonly lingering = new Set<ExecGroup>();
  private died = false;
  private closing: Promise<void> | undefined;
  private frozenDepth = 0;
  private paused = false;
  private ttlTimer: NodeJS.Timeout | undefined;

  constructor(o: LocalSandboxInit) {
    this.id = o.id;
    this.image = o.image;
    this.layers = o.layers;
    this.labels = Object.freeze({ ...o.labels });
    this.limits = Object.freeze({ ...o.limits });
    this.env = Object.freeze({ ...o.env });
    this.workdir = o.workdir;
    this.network = o.network;
    this.dir = o.dir;
    this.tools = o.tools;
    this.spawnHost = o.spawn;
    this.limitsHandle = o.limitsHandle;
    this.init = o.launched.init;
    this.pasta = o.pasta;
    this.holder = o.launched.holder;
    this.uidBase = o.launched.uidBase;
    this.owner = o.owner;
    this.holderExited = new Promise<void>((resolve) => {
      if (this.holder.exitCode !== null || this.holder.signalCode !== null) resolve();
      else {
        this.holder.once('exit', () => resolve());
        // The fork server that started it died (and took bwrap with it): no exit will be reported.
        this.holder.once('error', () => resolve());
      }
    }).then(() => {
      if (!this.closing) this.died = true;
    });
    // The sandbox ends itself at its TTL (gc covers owners that die first); unref'd so it keeps no one alive.
    if (o.ttlMs <= MAX_TIMER_MS) this.ttlTimer = setTimeout(() => void this.close(), o.ttlMs).unref();
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  get initPid(): number {
    return this.init.pid;
  }

  /** Host path of the writable layer, seen through the mount namespace that holds it. */
  get upperPath(): string {
    return `/proc/${this.holder.pid}/root${this.dir}/upper`;
  }

  private initAlive(): boolean {
    return processStartTicks(this.init.pid) === this.init.startTicks;
  }

  private assertUsable(): void {
    if (this.closing) throw new SandboxError(this.id, 'this sandbox is closed; create a new one');
    if (this.died || !this.initAlive()) {
      this.died = true;
      throw new SandboxError(
        this.id,
        'the sandbox died (its pid 1 is gone: killed from outside, or removed by "sandgym gc" after its TTL); ' +
          'close it and create a new one',
        { isRetryable: true },
      );
    }
  }

  private enterParams(
    argv: readonly string[],
    cwd: string | undefined,
    env: Record<string, string> | undefined,
  ) {
    this.assertUsable();
    checkEnv(this.id, env);
    return {
      sandboxId: this.id,
      tools: this.tools,
      spawn: this.spawnHost,
      initPid: this.init.pid,
      group: this.trackedGroup(),
      env: { ...this.env, ...env },
      cwd: cwd === undefined ? this.workdir : sandboxPath(this, cwd),
      argv,
    };
  }

  /** An exec's group that, when its exec ends with processes left in it, is remembered as lingering. */
  private trackedGroup(): ExecGroup {
    const group = this.limitsHandle.execGroup(`x${++this.execCount}`);
    return {
      ...group,
      release: () => {
        if (!group.release()) this.lingering.add(group);
        return true;
      },
    };
  }

  /**
   * Before a command starts: when the sandbox is at its process limit, what finished execs left behind
   * (a fork bomb in the background) is killed, so the command can start at all (before, every later exec
   * failed with 125 until close). Running execs and spawned processes are kept, and below the limit
   * background jobs (a server the agent started) live on.
   */
  private async reclaimPids(force: boolean): Promise<boolean> {
    this.assertUsable();
    for (const group of this.lingering) if (group.release()) this.lingering.delete(group);
    if (this.lingering.size === 0 || !(force || this.limitsHandle.pidsExhausted())) return false;
    const groups = [...this.lingering];
    this.lingering.clear();
    await Promise.all(
      groups.map(async (group) => {
        await group.kill();
        if (!group.release()) this.lingering.add(group);
      }),
    );
    return true;
  }

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    await this.reclaimPids(false);
    const run = () =>
      runExec({
        ...this.enterParams(toArgv(this.id, command), options.cwd, options.env),
        stdin: options.stdin,
        timeoutMs: options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
        maxOutputBytes: options.maxOutputBytes ?? this.limits.outputBytes,
        signal: options.signal,
      });
    let result = await run();
    // The limit filled between the check and the helper's fork (a bomb that had just started): the
    // command never ran, so once the leftovers are gone it runs (a stream stdin may be half read: not then).
    if (
      helperCouldNotFork(result) &&
      !(options.stdin instanceof Readable) &&
      (await this.reclaimPids(true))
    ) {
      result = await run();
    }
    // A command can fail as entering does; only a dead pid 1 makes it the sandbox's fault.
    if (result.exitCode !== 0 && !this.closing) this.assertUsable();
    return result;
  }

  async spawn(command: string | readonly string[], options: SpawnOptions = {}): Promise<SandboxProcess> {
    await this.reclaimPids(false);
    const params = this.enterParams(toArgv(this.id, command), options.cwd, options.env);
    let child: HostChild;
    try {
      child = await enterSandbox({ ...params, stdin: options.stdin === false ? 'ignore' : 'pipe' });
    } catch (e) {
      params.group.release();
      throw e;
    }
    const exited = new Promise<{ exitCode: number; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', (e) => reject(startFailure(this.id, e)));
      child.once('exit', (code, signal) => {
        params.group.release();
        resolve({ exitCode: exitCodeOf(code, signal), signal });
      });
    });
    child.stdin?.on('error', () => {});
    return {
      stdout: child.stdout!,
      stderr: child.stderr!,
      stdin: child.stdin ?? closedStdin(),
      kill: (signal: NodeJS.Signals = 'SIGKILL') => {
        if (signal === 'SIGKILL') void killEntered(child, params.group);
        else params.group.signal(signal);
      },
      exited,
    };
  }

  async raw(
    argv: readonly string[],
    options: Pick<RawCommandParams, 'stdin' | 'stdout' | 'maxStdoutBytes' | 'timeoutMs' | 'signal'>,
  ): Promise<RawResult> {
    await this.reclaimPids(false);
    return runRawCommand({ ...this.enterParams(argv, '/', undefined), ...options });
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<Buffer> {
    this.assertUsable();
    return readSandboxFile(this, path, readFileCap(this.id, options));
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.assertUsable();
    return writeSandboxFile(this, path, data, options.mode);
  }

  async uploadDir(hostDir: string, sandboxDir: string): Promise<void> {
    this.assertUsable();
    return uploadDirectory(this, hostDir, sandboxDir);
  }

  async downloadDir(sandboxDir: string, hostDir: string, options?: DownloadDirOptions): Promise<void> {
    this.assertUsable();
    return downloadDirectory(this, sandboxDir, hostDir, options?.maxBytes);
  }

  async fork(n: number): Promise<LocalSandbox[]> {
    this.assertUsable();
    assertForkCount(this.id, n);
    return this.owner.fork(this, n);
  }

  async snapshot(image: string): Promise<void> {
    this.assertUsable();
    await this.owner.snapshot(this, image);
  }

  /** Freezes the sandbox's cgroup until resume(); fork and snapshot freezes nest inside it. */
  async pause(): Promise<void> {
    this.assertUsable();
    if (!this.limitsHandle.freezes) {
      throw new SandboxError(this.id, 'cannot pause: this host has no cgroups to freeze the sandbox with');
    }
    if (this.paused) return;
    this.paused = true;
    if (this.frozenDepth++ === 0) await this.limitsHandle.freeze();
  }

  async resume(): Promise<void> {
    if (!this.paused) return;
    this.paused = false;
    if (--this.frozenDepth === 0) await this.limitsHandle.thaw();
  }

  /** Runs `fn` with every process of the sandbox stopped, so its filesystem holds still. */
  async whileFrozen<T>(fn: () => Promise<T>): Promise<T> {
    if (this.frozenDepth++ === 0) await this.limitsHandle.freeze();
    try {
      return await fn();
    } finally {
      if (--this.frozenDepth === 0) await this.limitsHandle.thaw();
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    clearTimeout(this.ttlTimer);
    // Killing pid 1 ends its pid namespace (the kernel kills the rest); bwrap's monitor and the start
    // helper (the holder) then exit and with them the mount namespace holding the overlay and the disk
    // image, and the uid range's lock.
    if (this.initAlive()) process.kill(this.init.pid, 'SIGKILL');
    this.holder.kill('SIGKILL');
    // sandgym-helper net would kill it once pid 1 is gone; sooner is better.
    if (this.pasta && processStartTicks(this.pasta.pid) === this.pasta.startTicks)
      process.kill(this.pasta.pid, 'SIGKILL');
    const deadline = Date.now() + SHUTDOWN_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.holderExited, new Promise((r) => (timer = setTimeout(r, SHUTDOWN_WAIT_MS)))]);
    clearTimeout(timer);
    // A SIGKILL takes effect when its target next runs: on a loaded host pid 1 can outlive the holder
    // by a moment (a zombie counts as gone).
    while (this.initAlive() && Date.now() < deadline) await sleep(1);
    this.owner.release(this);
  }
}
