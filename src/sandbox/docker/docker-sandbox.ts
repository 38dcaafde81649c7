import { stat } from 'node:fs/promises';
import type Docker from 'dockerode';
import { ConfigError, SandboxError } from '../../errors.ts';
import { readFileCap, toArgv } from '../call-checks.ts';
import { normalizeImageName } from '../images/index.ts';
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
import { commitContainer, splitImageRef } from './commit-container.ts';
import {
  downloadDirectory,
  readContainerFile,
  uploadDirectory,
  writeContainerFile,
} from './container-files.ts';
import { type DockerApi, httpStatus } from './docker-api.ts';
import { toEnvList } from './env-list.ts';
import type { ExecTarget } from './exec-session.ts';
import { runExec } from './run-exec.ts';
import { imageLabels } from './sandbox-labels.ts';
import { sandboxPath } from './sandbox-path.ts';
import { spawnProcess } from './spawned-process.ts';

/** Deadline of a command when the caller gives none. */
export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
/** The largest deadline a timer can hold (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What the provider does for its sandboxes: forks (it creates containers) and the end of a life. */
export interface SandboxHost {
  readonly api: DockerApi;
  fork(parent: DockerSandbox, n: number): Promise<DockerSandbox[]>;
  /** Kills the container now and removes it in the background. */
  dispose(sandbox: DockerSandbox): Promise<void>;
}

export interface DockerSandboxInit {
  container: Docker.Container;
  image: string;
  labels: Record<string, string>;
  limits: SandboxLimits;
  ttlMs: number;
  /** Set when the engine cannot enforce every limit (no disk quota on overlay2/ext4). */
  enforcedLimits?: readonly (keyof SandboxLimits)[];
  network: boolean;
  env: Record<string, string>;
  workdir?: string | undefined;
}

/** One sandbox: a running container whose pid 1 is sandgym's init (see container-spec.ts). */
export class DockerSandbox implements Sandbox, ExecTarget {
  readonly provider = 'docker';
  readonly id: string;
  readonly image: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly limits: Readonly<SandboxLimits>;
  readonly enforcedLimits: readonly (keyof SandboxLimits)[] | undefined;
  readonly container: Docker.Container;
  /** How it was made, so that forks are made the same way. */
  readonly init: Readonly<DockerSandboxInit>;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly host: SandboxHost,
    init: DockerSandboxInit,
  ) {
    this.init = init;
    this.container = init.container;
    this.id = init.container.id.slice(0, 12);
    this.image = init.image;
    this.labels = Object.freeze({ ...init.labels });
    this.limits = Object.freeze({ ...init.limits });
    this.enforcedLimits = init.enforcedLimits;
  }

  get api(): DockerApi {
    return this.host.api;
  }

  get sandboxId(): string {
    return this.id;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    return runExec(this, {
      argv: [...toArgv(this.id, command)],
      env: toEnvList(options.env, `sandbox ${this.id}: exec env`),
      cwd: options.cwd === undefined ? undefined : sandboxPath(this.id, options.cwd),
      stdin: options.stdin,
      timeoutMs: checkTimeout(options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS),
      maxOutputBytes: options.maxOutputBytes ?? this.limits.outputBytes,
      signal: options.signal,
    });
  }

  async spawn(command: string | readonly string[], options: SpawnOptions = {}): Promise<SandboxProcess> {
    this.assertOpen();
    return spawnProcess(this, {
      argv: [...toArgv(this.id, command)],
      env: toEnvList(options.env, `sandbox ${this.id}: spawn env`),
      cwd: options.cwd === undefined ? undefined : sandboxPath(this.id, options.cwd),
      stdin: options.stdin !== false,
    });
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<Buffer> {
    this.assertOpen();
    return readContainerFile(this, sandboxPath(this.id, path), readFileCap(this.id, options));
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.assertOpen();
    const mode = options.mode ?? 0o644;
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
      throw new ConfigError(`sandbox ${this.id}: writeFile mode must be a permission number like 0o644`);
    }
    await writeContainerFile(this, sandboxPath(this.id, path), data, mode);
  }

  async uploadDir(hostDir: string, sandboxDir: string): Promise<void> {
    this.assertOpen();
    const target = sandboxPath(this.id, sandboxDir);
    const st = await stat(hostDir).catch(() => undefined);
    if (!st?.isDirectory()) {
      throw new ConfigError(`sandbox ${this.id}: uploadDir: host directory "${hostDir}" does not exist`);
    }
    await uploadDirectory(this, hostDir, target);
  }

  async downloadDir(sandboxDir: string, hostDir: string, options?: DownloadDirOptions): Promise<void> {
    this.assertOpen();
    await downloadDirectory(this, sandboxPath(this.id, sandboxDir), hostDir, options?.maxBytes);
  }

  async fork(n: number): Promise<DockerSandbox[]> {
    this.assertOpen();
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new ConfigError(`sandbox ${this.id}: fork(n) needs a non-negative integer, got ${n}`);
    }
    if (n === 0) return [];
    return this.host.fork(this, n);
  }

  /**
   * `docker commit` to `image`. Besides the filesystem, the image keeps the sandbox's env and sandgym's
   * entrypoint (commit merges the container's config and cannot drop keys); every create sets both anew.
   */
  /** docker pause: the container's processes are frozen (its cgroup freezer) until resume(). */
  async pause(): Promise<void> {
    await this.assertUsable();
    await this.container.pause();
  }

  async resume(): Promise<void> {
    await this.container.unpause();
  }

  async snapshot(image: string): Promise<void> {
    this.assertOpen();
    const ref = normalizeImageName(image);
    if (ref.includes('@')) {
      throw new ConfigError(
        `sandbox ${this.id}: snapshot image "${image}" cannot have a digest; use name:tag`,
      );
    }
    await this.commit({ ...splitImageRef(ref), labels: imageLabels('snapshot') });
  }

  /** Commits the current filesystem to `repo:tag`; the image id. */
  async commit(target: { repo: string; tag: string; labels: Record<string, string> }): Promise<string> {
    try {
      return await commitContainer(this.api, this.container, target, this.id);
    } catch (e) {
      await this.assertUsable();
      throw e;
    }
  }

  close(): Promise<void> {
    this.closing ??= this.host.dispose(this);
    return this.closing;
  }

  async assertUsable(): Promise<void> {
    this.assertOpen();
    let info: Docker.ContainerInspectInfo;
    try {
      info = await this.api.call(
        'container inspect',
        (abortSignal) => this.container.inspect({ abortSignal }),
        {
          sandboxId: this.id,
        },
      );
    } catch (e) {
      if (httpStatus(e) !== 404) throw e;
      throw this.died('its container was removed from outside (by "sandgym gc --all" or "docker rm"?)');
    }
    this.assertOpen();
    if (!info.State.Running) throw this.died(describeExit(info.State, this.init.ttlMs));
  }

  private assertOpen(): void {
    if (this.closing) {
      throw new SandboxError(this.id, 'is closed (close() was called); create a new sandbox to go on');
    }
  }

  private died(why: string): SandboxError {
    return new SandboxError(this.id, `died: ${why}; create a new sandbox`, { isRetryable: true });
  }
}

function checkTimeout(timeoutMs: number): number {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new ConfigError(`exec timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  return timeoutMs;
}

function describeExit(state: Docker.ContainerInspectInfo['State'], ttlMs: number): string {
  if (state.OOMKilled)
    return `its container was killed for exceeding its memory limit (exit ${state.ExitCode})`;
  if (state.ExitCode === 0)
    return `its TTL of ${Math.ceil(ttlMs / 1000)} s ran out (raise ttlMs for longer lives)`;
  const error = state.Error ? `: ${state.Error}` : '';
  return `its container stopped (status "${state.Status}", exit ${state.ExitCode}${error})`;
}
