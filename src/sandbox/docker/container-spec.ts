import type Docker from 'dockerode';
import { ConfigError } from '../../errors.ts';
import type { SandboxLimits } from '../types.ts';
import { toEnvList } from './env-list.ts';
import { SANDBOX_SECCOMP_PROFILE } from './seccomp-profile.ts';

/**
 * Pid 1 of every docker sandbox, run as `sh -c INIT_SCRIPT sandgym-init <ttl seconds>`.
 *
 * Why a shell and not Docker's `Init: true`: docker-init (tini) exits when its one child dies, so a
 * command running `kill -9 -1` (which spares only pid 1) takes the whole container down — measured on
 * this engine: "Exited (137)". A shell as pid 1 cannot be signalled from inside its pid namespace; when
 * its `sleep` is killed it starts another for the time left. It also reaps orphans: `wait` collects any
 * child that exits, adopted ones included. The TTL ends the container even if gc never runs. Only
 * builtins besides `sleep`; a missing `sleep` ends the container instead of spinning.
 */
export const INIT_SCRIPT = [
  'IFS=. read up _ < /proc/uptime; end=$((up + $1))',
  'while :; do',
  '  IFS=. read up _ < /proc/uptime; left=$((end - up))',
  '  [ "$left" -gt 0 ] || exit 0',
  '  sleep "$left" & wait $!',
  '  s=$?; case $s in 126|127) exit $s ;; esac',
  'done',
].join('\n');

export interface ContainerSpecInput {
  image: string;
  /** Complete labels (owner, creation time, TTL and the user's). */
  labels: Record<string, string>;
  limits: SandboxLimits;
  ttlMs: number;
  network: boolean;
  env?: Readonly<Record<string, string>> | undefined;
  workdir?: string | undefined;
  /** `HostConfig.StorageOpt.size`, when the storage driver can enforce it: image size + disk limit. */
  storageSizeBytes?: number | undefined;
  /**
   * RLIMIT_FSIZE, the fallback when it cannot: no single file may outgrow the disk limit (a write past it
   * fails with EFBIG, or SIGXFSZ ends the writer). It does not bound the total.
   */
  fileSizeLimitBytes?: number | undefined;
}

/** The create body of a sandbox's container. Pure: every choice about the container is made here. */
export function containerSpec(input: ContainerSpecInput): Docker.ContainerCreateOptions {
  if (input.workdir !== undefined && !input.workdir.startsWith('/')) {
    throw new ConfigError(`workdir "${input.workdir}" must be an absolute path inside the sandbox`);
  }
  const hostConfig: Docker.HostConfig = {
    NetworkMode: input.network ? 'bridge' : 'none',
    Memory: input.limits.memoryBytes,
    // Equal to Memory: no swap, so the memory limit is a real wall.
    MemorySwap: input.limits.memoryBytes,
    PidsLimit: input.limits.pids,
    NanoCpus: Math.round(input.limits.cpus * 1e9),
    Init: false,
    AutoRemove: false,
    // Pid 1 never writes; a log file per container would be pure cost.
    LogConfig: { Type: 'none', Config: {} },
    // As local sandboxes: no privilege gained through exec (setuid binaries), and the current moby
    // profile rather than the one this engine shipped with (see seccomp-profile.ts).
    SecurityOpt: [
      'no-new-privileges:true',
      ...(SANDBOX_SECCOMP_PROFILE ? [`seccomp=${SANDBOX_SECCOMP_PROFILE}`] : []),
    ],
  };
  if (input.storageSizeBytes !== undefined) hostConfig.StorageOpt = { size: String(input.storageSizeBytes) };
  if (input.fileSizeLimitBytes !== undefined) {
    hostConfig.Ulimits = [{ Name: 'fsize', Soft: input.fileSizeLimitBytes, Hard: input.fileSizeLimitBytes }];
  }
  return {
    Image: input.image,
    Entrypoint: ['/bin/sh', '-c', INIT_SCRIPT, 'sandgym-init'],
    Cmd: [String(Math.max(1, Math.ceil(input.ttlMs / 1000)))],
    Labels: input.labels,
    Env: toEnvList(input.env, 'sandbox env'),
    ...(input.workdir !== undefined && { WorkingDir: input.workdir }),
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    OpenStdin: false,
    Tty: false,
    NetworkDisabled: !input.network,
    HostConfig: hostConfig,
  };
}
