import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { SandboxError } from '../../errors.ts';
import { processStartTicks } from '../owner.ts';
import type { HostChild, SpawnHost } from './fork-server.ts';
import type { HostTools } from './host-tools.ts';
import { entryArgs, entryScript, type LimitEntry } from './limit-entry.ts';

export interface LaunchParams {
  id: string;
  tools: HostTools;
  spawn: SpawnHost;
  /** The sandbox directory: the mount point of its tmpfs (in the sandbox's mount namespace only). */
  dir: string;
  /** `<home>/layers`, and the sandbox's lower layers in it, topmost first. */
  layersDir: string;
  layers: readonly string[];
  diskBytes: number;
  /** How the starting process puts itself under the sandbox's limits. */
  limits: LimitEntry;
  network: boolean;
  /** Created when missing, as Docker does for a container's working directory. */
  workdir: string;
  /** Fork: a parent's upper directory (reachable through /proc/<pid>/root) to start from. */
  copyUpperFrom?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface LaunchedInit {
  /** bwrap's monitor: the host-side process whose mount namespace holds the sandbox's mounts. */
  holder: HostChild;
  init: { pid: number; startTicks: number };
  holderTicks: number;
}

/**
 * One process does the whole start (sandgym-helper, or this script where it could not be compiled):
 * join the limits, enter a private mount namespace, mount a tmpfs of `diskBytes` (the sandbox's
 * writable disk: full means ENOSPC) on the sandbox directory, holding the overlay's upper, work and
 * mount point, mount the overlay over the image's layers, and exec bwrap with catatonit as pid 1. The
 * mounts exist only in that namespace, so they vanish with the sandbox, even when sandgym is killed;
 * the host sees the directory as it was, holding only meta.json.
 */
const startScript = (enterLimits: string) => `set -e
${enterLimits}
mount -t tmpfs -o "size=$2,mode=0755" sandgym-disk "$1"
mkdir "$1/upper" "$1/work" "$1/merged"
[ -z "$4" ] || cp -a "$4/." "$1/upper/"
cd "$3"
mount -t overlay -o "lowerdir=$5,upperdir=$1/upper,workdir=$1/work,index=off,redirect_dir=off,metacopy=off" sandgym-root "$1/merged"
cd /
shift 5
exec "$@"`;

function bwrapArgs(p: LaunchParams): string[] {
  return [
    p.tools.bwrap,
    '--bind',
    `${p.dir}/merged`,
    '/',
    '--proc',
    '/proc',
    // sandgym-helper makes /dev on the sandbox's tmpfs (one bind); the shell path lets bwrap make it.
    ...(p.tools.helper ? ['--dev-bind', `${p.dir}/dev`, '/dev'] : ['--dev', '/dev']),
    '--ro-bind',
    p.tools.catatonit,
    '/dev/.init',
    ...(p.network ? ['--ro-bind', '/etc/resolv.conf', '/etc/resolv.conf'] : []),
    // bwrap creates it inside the new root, so a symlink in the image cannot point it at the host.
    ...(p.workdir === '/' ? [] : ['--dir', p.workdir]),
    '--unshare-all',
    ...(p.network ? ['--share-net'] : []),
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

/** The program and arguments that start the sandbox: sandgym-helper, or unshare and the script above. */
function startCommand(p: LaunchParams): [string, string[]] {
  // Relative lowerdirs keep the mount options short: the kernel caps them at one page.
  const lowerdir = p.layers.map((k) => `${k}/rootfs`).join(':');
  const disk = String(p.diskBytes);
  if (p.tools.helper) {
    const args = [
      'start',
      ...entryArgs(p.limits),
      p.dir,
      disk,
      p.layersDir,
      lowerdir,
      p.copyUpperFrom ?? '-',
    ];
    return [p.tools.helper, [...args, '/bin/cp', '--', ...bwrapArgs(p)]];
  }
  const script = ['/bin/sh', '-c', startScript(entryScript(p.limits)), 'sandgym-start'];
  const args = [p.dir, disk, p.layersDir, p.copyUpperFrom ?? '', lowerdir];
  return [p.tools.unshare, ['--mount', '--propagation', 'private', ...script, ...args, ...bwrapArgs(p)]];
}

export async function launchInit(p: LaunchParams): Promise<LaunchedInit> {
  const [file, args] = startCommand(p);
  let holder: HostChild;
  try {
    holder = await p.spawn(file, args, {
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
    const initPid = await readChildPid(holder, p);
    await waitForExec(initPid, holder, p.timeoutMs ?? 60_000);
    const startTicks = processStartTicks(initPid);
    const holderTicks = holder.pid === undefined ? undefined : processStartTicks(holder.pid);
    if (startTicks === undefined || holderTicks === undefined)
      throw new Error('pid 1 exited right after start');
    // The sandbox must not keep sandgym alive, nor sandgym's exit leave it running (--die-with-parent).
    holder.unref();
    (holder.stderr as Socket).unref();
    (holder.stdio[3] as Socket).unref();
    return { holder, init: { pid: initPid, startTicks }, holderTicks };
  } catch (e) {
    holder.kill('SIGKILL');
    const detail = stderr.trim() || (e instanceof Error ? e.message : String(e));
    throw new SandboxError(p.id, `could not start: ${detail}`, { cause: e, isRetryable: true });
  }
}

/** bwrap writes `{ "child-pid": N, … }` on fd 3 once it has cloned the sandbox's pid 1. */
function readChildPid(holder: HostChild, p: LaunchParams): Promise<number> {
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
      const m = /"child-pid":\s*(\d+)/.exec(text);
      if (m) {
        done();
        resolve(Number(m[1]));
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
