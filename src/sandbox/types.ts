import type { Readable, Writable } from 'node:stream';

/**
 * The Sandbox contract. Every provider (local, docker, e2b, …) implements it and passes the one
 * conformance suite in `conformance.ts`.
 *
 * Contracts:
 * - Exec is data, never an exception: a non-zero exit, a timeout or truncated output comes back in
 *   `ExecResult`. Only a broken or closed sandbox throws (`SandboxError`).
 * - Every wait has a deadline: `timeoutMs` kills the command's whole process tree.
 * - Sandboxes are closed by default: no network, no host paths, limits on memory, processes, disk, output.
 * - Nothing leaks: every sandbox carries labels (owner run, creation time, TTL) that `gc` reads.
 */

/** Resource limits of one sandbox. Units are in the names. */
export interface SandboxLimits {
  /** Memory of all processes together; exceeding it kills the biggest (exit 137). */
  memoryBytes: number;
  /** Processes and threads alive at once; a fork bomb hits this wall. */
  pids: number;
  /** CPU cores' worth of time (0.5 = half a core). */
  cpus: number;
  /** Bytes the sandbox may write to its filesystem; beyond it writes fail with ENOSPC. */
  diskBytes: number;
  /** Default cap on an exec's captured stdout + stderr; the rest is cut with a marker. */
  outputBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 2 * 1024 ** 3,
  pids: 512,
  cpus: 1,
  diskBytes: 4 * 1024 ** 3,
  outputBytes: 1024 * 1024,
};

/** Label keys that sandgym itself sets on every sandbox. */
export const LABELS = {
  run: 'sandgym.run',
  createdAt: 'sandgym.created-at',
  ttlMs: 'sandgym.ttl-ms',
} as const;

export interface CreateSandboxOptions {
  /** Image name, e.g. `sandgym/base` or a SWE-bench instance image. */
  image: string;
  /** Extra labels; the provider adds the owner run id, creation time and TTL. */
  labels?: Record<string, string>;
  /** Lifetime after which `gc` (and the provider itself, where it can) removes the sandbox. */
  ttlMs?: number;
  limits?: Partial<SandboxLimits>;
  /** Network access. Off by default: the sandbox sees only its own loopback. */
  network?: boolean;
  /** Environment given to every exec, under the exec's own `env`. */
  env?: Record<string, string>;
  /** Default working directory of execs. */
  workdir?: string;
  signal?: AbortSignal;
}

export interface ExecOptions {
  /** Working directory inside the sandbox (default: the sandbox's workdir). */
  cwd?: string;
  env?: Record<string, string>;
  /** Bytes written to the command's stdin, then stdin is closed. */
  stdin?: string | Uint8Array | Readable;
  /** Deadline of the command; on expiry its whole process tree is killed. Default 120 s. */
  timeoutMs?: number;
  /** Cap on captured stdout + stderr (default: the sandbox's `limits.outputBytes`). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

export interface DownloadDirOptions {
  /** Cap on the file bytes written on the host; past it the copy fails (a sparse 20 GiB file is 20 GiB here). */
  maxBytes?: number;
}

export interface ReadFileOptions {
  /** Largest file read whole; past it the read stops and fails with `FileTooLargeError`. */
  maxBytes?: number;
}

/** readFile's default cap: files beyond it are not data for a trainer to hold in memory. */
export const DEFAULT_READ_FILE_MAX_BYTES = 256 * 1024 ** 2;

export interface ExecResult {
  /** The command's exit code; 128+N when killed by signal N; 124 when it timed out. */
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Output exceeded `maxOutputBytes` and was cut (head and tail kept, a marker between). */
  truncated: boolean;
  durationMs: number;
}

/** A command started with `spawn`: streamed output, stdin, signals. */
export interface SandboxProcess {
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdin: Writable;
  /** Signal the command's whole process tree (default SIGKILL). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves when the command has exited; never rejects for a non-zero exit. */
  readonly exited: Promise<{ exitCode: number; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Default true: `stdin` is a pipe to the command. False: the command reads end-of-file at once (as from
   * /dev/null) and `stdin` is closed; no pipe is made, which makes a start cheaper.
   */
  stdin?: boolean;
}

export interface Sandbox {
  readonly id: string;
  readonly provider: string;
  readonly image: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly limits: Readonly<SandboxLimits>;
  /**
   * The limits this sandbox really enforces (a Docker engine on overlay2 without project quotas cannot
   * limit disk writes, for example). Absent means all of them.
   */
  readonly enforcedLimits?: readonly (keyof SandboxLimits)[];
  readonly closed: boolean;

  /** Run a shell string (`/bin/sh -c`) or an argv. Never throws for what the command does. */
  exec(command: string | readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /** Start a long-lived command (a pdb session, a server). Its lifetime ends with the sandbox. */
  spawn(command: string | readonly string[], options?: SpawnOptions): Promise<SandboxProcess>;

  /**
   * A file's bytes. At most `maxBytes` (default `DEFAULT_READ_FILE_MAX_BYTES`) are ever held on the host:
   * a longer file (a 20 GiB sparse file, /dev/zero) fails with `FileTooLargeError` once the cap is passed.
   */
  readFile(path: string, options?: ReadFileOptions): Promise<Buffer>;
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Copy a host directory's contents into `sandboxDir` (created if absent). */
  uploadDir(hostDir: string, sandboxDir: string): Promise<void>;
  /**
   * Copy `sandboxDir`'s contents into a host directory (created if absent), under PEP 706's "data" rules
   * (see extract-tar.ts): special files and links out of the tree are refused, setuid bits dropped, and
   * at most `maxBytes` of file data (default 16 GiB) is written.
   */
  downloadDir(sandboxDir: string, hostDir: string, options?: DownloadDirOptions): Promise<void>;

  /** n independent sandboxes starting from this one's current filesystem (processes are not copied). */
  fork(n: number): Promise<Sandbox[]>;
  /** Save the current filesystem as a new image, usable in `create({image})`. */
  snapshot(image: string): Promise<void>;
  /**
   * Stop every process of the sandbox until `resume()` (where the provider can freeze them). Calls that
   * run commands wait or fail while it is paused; closing it still works.
   */
  pause?(): Promise<void>;
  resume?(): Promise<void>;

  /**
   * Kill everything inside and release every resource. Idempotent. Resolves once nothing inside runs;
   * a provider may finish removing what is left (containers, cgroups, directories) in the background,
   * and its own `close()` waits for that.
   */
  close(): Promise<void>;
}

export interface GcOptions {
  /** Remove every sandgym sandbox of this provider, alive owner or not. */
  all?: boolean;
}

export interface GcReport {
  provider: string;
  /** Ids of the sandboxes removed. */
  removed: string[];
  /** Sandboxes left because their owner is alive and their TTL has not passed. */
  kept: number;
}

export interface SandboxProvider {
  readonly name: string;
  create(options: CreateSandboxOptions): Promise<Sandbox>;
  hasImage(image: string): Promise<boolean>;
  /** Normalized names of the images whose name starts with `prefix` (snapshots), where the provider can list. */
  listImages?(prefix: string): Promise<string[]>;
  /** Removes an image (and what only it used, when no sandbox runs on it); false when there was none. */
  removeImage?(image: string): Promise<boolean>;
  /** Remove what belongs to dead runs or is past its TTL. */
  gc(options?: GcOptions): Promise<GcReport>;
  /** Close every sandbox this provider object created. */
  close(): Promise<void>;
}
