import { FileTooLargeError, isSandgymError, SandboxError } from '../../errors.ts';
import { assertForkCount, checkEnv, readFileCap, toArgv } from '../call-checks.ts';
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
import type { E2BApiClient } from './api-client.ts';
import { downloadDirectory, type TransferHost, uploadDirectory } from './dir-transfer.ts';
import type { EnvdClient } from './envd-client.ts';
import { BodyTooLargeError, StreamIdleError } from './http-transport.ts';
import { signalMarkedArgv } from './process-marker.ts';
import { runRemoteExec } from './remote-exec.ts';
import { spawnRemote } from './remote-spawn.ts';
import { isRpcError } from './rpc-error.ts';

const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
const SIGNAL_TREE_TIMEOUT_MS = 15_000;

/** What a sandbox asks of the provider that made it. */
export interface E2BSandboxOwner {
  fork(parent: E2BSandbox, n: number): Promise<E2BSandbox[]>;
  snapshot(parent: E2BSandbox, image: string): Promise<void>;
  forget(sandbox: E2BSandbox): void;
}

export interface E2BSandboxInit {
  id: string;
  image: string;
  template: string;
  labels: Record<string, string>;
  limits: SandboxLimits;
  /** Default cwd of commands; undefined leaves it to the server (envd: the user's home). */
  workdir: string | undefined;
  ttlMs: number;
  api: E2BApiClient;
  envd: EnvdClient;
  envdUrl: string;
  streamIdleTimeoutMs: number;
  owner: E2BSandboxOwner;
}

/** A sandbox on an E2B-protocol server: lifecycle through the REST API, everything inside through envd. */
export class E2BSandbox implements Sandbox, TransferHost {
  readonly provider = 'e2b';
  readonly id: string;
  readonly image: string;
  readonly template: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly limits: Readonly<SandboxLimits>;
  readonly workdir: string | undefined;
  readonly ttlMs: number;
  readonly envd: EnvdClient;
  readonly streamIdleTimeoutMs: number;
  private readonly api: E2BApiClient;
  private readonly envdUrl: string;
  private readonly owner: E2BSandboxOwner;
  /** Aborted on close: running commands end, and their callers get a SandboxError. */
  private readonly lifetime = new AbortController();
  /** Streams of spawned commands, dropped on close. */
  private readonly running = new Set<{ abort(): void }>();
  private closing: Promise<void> | undefined;

  constructor(o: E2BSandboxInit) {
    this.id = o.id;
    this.image = o.image;
    this.template = o.template;
    this.labels = Object.freeze({ ...o.labels });
    this.limits = Object.freeze({ ...o.limits });
    this.workdir = o.workdir;
    this.ttlMs = o.ttlMs;
    this.api = o.api;
    this.envd = o.envd;
    this.envdUrl = o.envdUrl;
    this.streamIdleTimeoutMs = o.streamIdleTimeoutMs;
    this.owner = o.owner;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const argv = this.usableArgv(command, options.env);
    const lifetime = this.lifetime.signal;
    return runRemoteExec({
      envd: this.envd,
      argv,
      cwd: options.cwd ?? this.workdir,
      env: options.env,
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
      maxOutputBytes: options.maxOutputBytes ?? this.limits.outputBytes,
      signal: options.signal ? AbortSignal.any([options.signal, lifetime]) : lifetime,
      signalTree: (execId, sig) => this.signalTree(execId, sig),
      streamFailure: (e) => this.failure(e, 'the command stream failed'),
    });
  }

  async spawn(command: string | readonly string[], options: SpawnOptions = {}): Promise<SandboxProcess> {
    const argv = this.usableArgv(command, options.env);
    const handle = { abort: () => {} };
    this.running.add(handle);
    const proc = await spawnRemote({
      envd: this.envd,
      argv,
      cwd: options.cwd ?? this.workdir,
      env: options.env,
      stdin: options.stdin !== false,
      signalTree: (execId, sig) => this.signalTree(execId, sig),
      onEnd: () => this.running.delete(handle),
    }).catch((e: unknown) => {
      this.running.delete(handle);
      throw this.failure(e, 'cannot start the command');
    });
    handle.abort = () => proc.abort();
    return proc;
  }

  /** Signals a command's tree with one more command; no tree-kill of its own (it carries no marker to find). */
  private async signalTree(execId: string, signal: NodeJS.Signals): Promise<void> {
    await runRemoteExec({
      envd: this.envd,
      argv: signalMarkedArgv(execId, signal),
      cwd: '/',
      env: undefined,
      stdin: undefined,
      timeoutMs: SIGNAL_TREE_TIMEOUT_MS,
      maxOutputBytes: 4096,
      signal: undefined,
      signalTree: async () => {},
      streamFailure: (e) => this.failure(e, `cannot signal the processes of command ${execId}`),
    });
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<Buffer> {
    this.assertOpen();
    const maxBytes = readFileCap(this.id, options);
    try {
      return await this.envd.readFile(path, maxBytes);
    } catch (e) {
      if (e instanceof BodyTooLargeError) throw new FileTooLargeError(this.id, path, maxBytes);
      throw this.failure(e, `cannot read ${path}`);
    }
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.assertOpen();
    try {
      await this.envd.upload(path, Buffer.from(data));
    } catch (e) {
      throw this.failure(e, `cannot write ${path}`);
    }
    if (options.mode === undefined) return;
    const r = await this.exec(['chmod', options.mode.toString(8), '--', path], { timeoutMs: 60_000 });
    if (r.exitCode !== 0) throw new SandboxError(this.id, `cannot chmod ${path}: ${r.stderr.trim()}`);
  }

  async uploadDir(hostDir: string, sandboxDir: string): Promise<void> {
    this.assertOpen();
    await uploadDirectory(this, hostDir, sandboxDir);
  }

  async downloadDir(sandboxDir: string, hostDir: string, options?: DownloadDirOptions): Promise<void> {
    this.assertOpen();
    await downloadDirectory(this, sandboxDir, hostDir, options?.maxBytes);
  }

  async fork(n: number): Promise<Sandbox[]> {
    this.assertOpen();
    assertForkCount(this.id, n);
    return this.owner.fork(this, n);
  }

  async snapshot(image: string): Promise<void> {
    this.assertOpen();
    await this.owner.snapshot(this, image);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.lifetime.abort(new SandboxError(this.id, 'this sandbox was closed'));
      for (const r of [...this.running]) r.abort();
      try {
        await this.api.kill(this.id);
      } finally {
        this.owner.forget(this);
      }
    })();
    return this.closing;
  }

  /**
   * The sandbox's error for anything that went wrong talking to it: what was being done, what the
   * server or the network said, and whether the sandbox is gone.
   */
  failure(e: unknown, what: string): Error {
    if (this.closing) return new SandboxError(this.id, `${what}: this sandbox is closed; create a new one`);
    if (e instanceof SandboxError) return e;
    const cause = { cause: e };
    if (isRpcError(e)) {
      if (e.code === 'not_found') return new SandboxError(this.id, `${what}: ${e.message}`, cause);
      if (e.code === 'unauthenticated' || e.code === 'permission_denied') {
        return new SandboxError(
          this.id,
          `${what}: envd refused the sandbox's access token (${e.message})`,
          cause,
        );
      }
      if (e.code === 'unavailable') {
        return new SandboxError(
          this.id,
          `${what}: the sandbox is unreachable or gone (expired or killed): ${e.message}`,
          { ...cause, isRetryable: true },
        );
      }
      return new SandboxError(this.id, `${what}: envd answered ${e.code}: ${e.message}`, cause);
    }
    if (e instanceof StreamIdleError)
      return new SandboxError(this.id, `${what}: ${e.message}`, { ...cause, isRetryable: true });
    const message = isSandgymError(e) || e instanceof Error ? e.message : String(e);
    return new SandboxError(this.id, `${what}: cannot reach envd at ${this.envdUrl}: ${message}`, {
      ...cause,
      isRetryable: true,
    });
  }

  private usableArgv(
    command: string | readonly string[],
    env: Record<string, string> | undefined,
  ): readonly string[] {
    this.assertOpen();
    checkEnv(this.id, env);
    return toArgv(this.id, command);
  }

  private assertOpen(): void {
    if (this.closing) throw new SandboxError(this.id, 'this sandbox is closed; create a new one');
  }
}
