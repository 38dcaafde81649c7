import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { SandboxError } from '../../errors.ts';
import { processStartTicks } from '../owner.ts';
import type { HostChild, SpawnHost } from './fork-server.ts';
import type { HostTools } from './host-tools.ts';
import { entryArgs, type LimitEntry } from './limit-entry.ts';

export interface LaunchParams {
  id: string;
  tools: HostTools;
  spawn: SpawnHost;
  /** The sandbox directory: the mount point of its disk image (in the sandbox's mount namespace only). */
  dir: string;
  /** `<home>/layers`, and the sandbox's lower layers in it, topmost first. */
  layersDir: string;
  layers: readonly string[];
  diskBytes: number;
  /** How the starting process puts itself under the sandbox's limits. */
  limits: LimitEntry;
  network: boolean;
  /** With network: the resolv.conf to bind over the image's (see network.ts). */
  resolvConf?: string;
  /** Created when missing, as Docker does for a container's working directory. */
  workdir: string;
  /** Fork: a parent's upper directory (reachable through /proc/<pid>/root) to start from, and its uid range. */
  copyUpperFrom?: { path: string; uidBase: number };
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface LaunchedInit {
  /** sandgym-helper start, bwrap's parent: holds the sandbox's mounts (its mount namespace) and uid range. */
  holder: HostChild;
  /** The host uid of root inside: the sandbox's ids 0..65535 are host uids uidBase.. (and gids). */
  uidBase: number;
  init: { pid: number; startTicks: number };
  holderTicks: number;
}

/** Where sandgym-helper mounts a sandbox's tree in its own mount namespace (MNT_DIR in the helper). */
const MNT_DIR = '/run/sandgym/mnt';

/** Docker's default capabilities (moby daemon/pkg/oci/caps/defaults.go), held in the sandbox's user namespace only. */
export const DOCKER_CAPS = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FSETID',
  'CAP_FOWNER',
  'CAP_MKNOD',
  'CAP_NET_RAW',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETFCAP',
  'CAP_SETPCAP',
  'CAP_NET_BIND_SERVICE',
  'CAP_SYS_CHROOT',
  'CAP_KILL',
  'CAP_AUDIT_WRITE',
] as const;

/** Paths Docker makes read-only (moby daemon/pkg/oci/defaults.go): kernel-wide settings. */
const READONLY_PROC = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];
/** Paths Docker hides: kernel memory, other users' keys, timers and interrupts that leak host activity. */
const MASKED_PROC = [
  '/proc/acpi',
  '/proc/asound',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/proc/timer_list',
  '/proc/timer_stats',
];

/** bwrap arguments that mask and freeze /proc as Docker does; paths this kernel lacks are skipped. */
function procArgs(): string[] {
  const args: string[] = [];
  for (const path of READONLY_PROC) if (existsSync(path)) args.push('--ro-bind', path, path);
  for (const path of MASKED_PROC) {
    const s = statSync(path, { throwIfNoEntry: false });
    if (s?.isDirectory()) args.push('--tmpfs', path, '--remount-ro', path);
    else if (s) args.push('--ro-bind', '/dev/null', path);
  }
  return args;
}
const PROC_ARGS = procArgs();

/**
 * sandgym-helper (see helper/sandgym-helper.c) does the whole start: joins the limits, locks a host uid
 * range and makes the sandbox's user namespace, mounts (in a private mount namespace) a sparse ext4
 * image of `diskBytes` (helper/disk.c: the sandbox's writable disk, on the host's disk rather than in
 * its memory; full means ENOSPC) with the overlay's upper and work dirs, the image's layers id-mapped
 * into the range, the overlay of them, then runs bwrap as the range's first uid with catatonit as pid 1.
 * The mounts exist only in that namespace, so they vanish with the sandbox, even when sandgym is killed
 * (the loop device detaches itself then); the host sees the directory holding meta.json and disk.ext4.
 */
function bwrapArgs(p: LaunchParams): string[] {
  return [
    p.tools.bwrap,
    // The user namespace the helper made (its fd 4): root inside is the range's first host uid.
    '--userns',
    '4',
    // The seccomp filter (helper/seccomp.c; its fd 5), for pid 1: bwrap applies it right before exec.
    '--seccomp',
    '5',
    '--uid',
    '0',
    '--gid',
    '0',
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-uts',
    '--unshare-cgroup',
    // A network namespace of its own even with network access: pasta connects it (network.ts).
    '--unshare-net',
    '--bind',
    `${MNT_DIR}/merged`,
    '/',
    '--proc',
    '/proc',
    ...PROC_ARGS,
    '--dev-bind',
    `${MNT_DIR}/dev`,
    '/dev',
    '--ro-bind',
    p.tools.catatonit,
    '/dev/.init',
    ...(p.network ? ['--ro-bind', p.resolvConf ?? '/etc/resolv.conf', '/etc/resolv.conf'] : []),
    // bwrap creates it inside the new root, so a symlink in the image cannot point it at the host.
    ...(p.workdir === '/' ? [] : ['--dir', p.workdir]),
    '--cap-drop',
    'ALL',
    ...DOCKER_CAPS.flatMap((c) => ['--cap-add', c]),
    '--as-pid-1',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--hostname',
    'sandbox',
    '--json-status-fd',
    '3',
    '/dev/.init',
    '-P',
  ];
}

function startArgs(p: LaunchParams): string[] {
  // Relative lowerdirs keep the mount options short: the kernel caps them at one page.
  const lowerdir = p.layers.map((k) => `${k}/rootfs`).join(':');
  return [
    'start',
    ...entryArgs(p.limits),
    p.dir,
    String(p.diskBytes),
    p.layersDir,
    lowerdir,
    p.copyUpperFrom?.path ?? '-',
    String(p.copyUpperFrom?.uidBase ?? 0),
    '/bin/cp',
    p.tools.mkfs,
    '--',
    ...bwrapArgs(p),
  ];
}

export async function launchInit(p: LaunchParams): Promise<LaunchedInit> {
  let holder: HostChild;
  try {
    holder = await p.spawn(p.tools.helper, startArgs(p), {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
  } catch (e) {
    throw new SandboxError(p.id, `could not start: ${(e as Error).message}`, { cause: e, isRetryable: true });
  }
  let stderr = '';
  holder.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 4096) stderr += b.toString();
  });
  try {
    const { initPid, uidBase } = await readStatus(holder, p);
    await waitForExec(initPid, holder, p.timeoutMs ?? 60_000);
    const startTicks = processStartTicks(initPid);
    const holderTicks = holder.pid === undefined ? undefined : processStartTicks(holder.pid);
    if (startTicks === undefined || holderTicks === undefined)
      throw new Error('pid 1 exited right after start');
    // The sandbox must not keep sandgym alive, nor sandgym's exit leave it running (the helper's PDEATHSIG).
    holder.unref();
    (holder.stderr as Socket).unref();
    (holder.stdio[3] as Socket).unref();
    return { holder, init: { pid: initPid, startTicks }, holderTicks, uidBase };
  } catch (e) {
    holder.kill('SIGKILL');
    const detail = stderr.trim() || (e instanceof Error ? e.message : String(e));
    throw new SandboxError(p.id, `could not start: ${detail}`, { cause: e, isRetryable: true });
  }
}

/**
 * On fd 3 the helper writes `{ "uid-base": S }`, then bwrap `{ "child-pid": N, … }` once it has cloned
 * the sandbox's pid 1.
 */
function readStatus(holder: HostChild, p: LaunchParams): Promise<{ initPid: number; uidBase: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const status = holder.stdio[3] as Socket;
    const timer = setTimeout(() => reject(new Error('timed out waiting for bwrap')), p.timeoutMs ?? 60_000);
    const onAbort = () => reject(p.signal?.reason ?? new Error('aborted'));
    p.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      p.signal?.removeEventListener('abort', onAbort);
      status.off('data', onData);
    };
    const onData = (b: Buffer) => {
      text += b.toString();
      const pid = /"child-pid":\s*(\d+)/.exec(text);
      const base = /"uid-base":\s*(\d+)/.exec(text);
      if (pid && base) {
        done();
        resolve({ initPid: Number(pid[1]), uidBase: Number(base[1]) });
      }
    };
    status.on('data', onData);
    holder.once('exit', (code, signal) => {
      done();
      reject(new Error(`exited with ${signal ?? code} before the sandbox started`));
    });
    holder.once('error', (e) => {
      done();
      reject(e);
    });
  });
}

/**
 * bwrap reports the pid before it has set up the sandbox's mounts; the sandbox is ready once that
 * process has exec'd catatonit (its name is then `.init`, from /dev/.init).
 */
async function waitForExec(pid: number, holder: HostChild, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      throw new Error('pid 1 exited during setup');
    }
    if (comm !== 'bwrap') return;
    if (holder.exitCode !== null || Date.now() > end) throw new Error('setup did not finish');
    await new Promise((r) => setTimeout(r, 1));
  }
}
