import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { type DockerApi, engineMessage, httpStatus } from './docker-api.ts';
import { killTreeArgv, markerEnv } from './process-tree.ts';

/** The container side of a sandbox, as execs need it. */
export interface ExecTarget {
  readonly api: DockerApi;
  readonly container: Docker.Container;
  readonly sandboxId: string;
  /** Throws the sandbox's "closed" or "died" error when the container can no longer run commands. */
  assertUsable(): Promise<void>;
}

/** The error to report for a failed call: "closed" or "died" when that is why it failed, else the cause. */
export async function explainFailure(target: ExecTarget, cause: unknown): Promise<unknown> {
  await target.assertUsable();
  return cause;
}

export interface OpenExec {
  exec: Docker.Exec;
  /** The hijacked connection: multiplexed stdout/stderr in, stdin out. */
  socket: Duplex;
}

/** Deadline of the kill helper, retries included (a fork bomb can hold every pid for a while). */
export const KILL_DEADLINE_MS = 15_000;

/** Creates and starts an exec carrying `marker`, attached to stdout and stderr (and stdin if asked). */
export async function openExec(
  target: ExecTarget,
  request: { argv: string[]; env: string[]; cwd?: string | undefined; stdin: boolean; marker?: string },
  signal?: AbortSignal,
): Promise<OpenExec> {
  const { api, container, sandboxId } = target;
  const env = request.marker ? [...request.env, markerEnv(request.marker)] : request.env;
  const create = (abortSignal: AbortSignal) =>
    container.exec({
      Cmd: request.argv,
      Env: env,
      ...(request.cwd !== undefined && { WorkingDir: request.cwd }),
      AttachStdin: request.stdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      abortSignal,
    });
  try {
    const exec = await whilePaused(() => api.call('exec create', create, { signal, sandboxId }), signal);
    const start = (abortSignal: AbortSignal) =>
      exec.start({ hijack: true, stdin: request.stdin, abortSignal } as Docker.ExecStartOptions);
    // The pause can also fall between create and start.
    const socket = (await whilePaused(
      () => api.call('exec start', start, { signal, sandboxId }),
      signal,
    )) as Duplex;
    return { exec, socket };
  } catch (e) {
    throw await explainFailure(target, e);
  }
}

/** How long an exec waits for a paused container (a fork or snapshot commits it) before failing. */
const PAUSE_WAIT_MS = 10 * 60_000;

/** Retries `attempt` while the engine refuses it because the container is paused. */
async function whilePaused<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + PAUSE_WAIT_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (httpStatus(e) !== 409 || !/paused/i.test(engineMessage(e)) || Date.now() > deadline) throw e;
      await sleep(100, undefined, { signal });
    }
  }
}

/** Resolves when the connection has closed, for whatever reason. */
export function socketClosed(socket: Duplex): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('close', () => resolve());
    // Errors end the stream too; they are expected when the container is killed under an exec.
    socket.on('error', () => {});
  });
}

/**
 * The exit code of a finished exec, or undefined when the engine no longer knows it (the container was
 * removed). The attach stream can close a moment before the engine records the exit, hence the short poll.
 */
export async function execExitCode(target: ExecTarget, exec: Docker.Exec): Promise<number | undefined> {
  for (let attempt = 0; attempt < 40; attempt++) {
    let info: Docker.ExecInspectInfo;
    try {
      info = await target.api.call('exec inspect', (abortSignal) => exec.inspect({ abortSignal }), {
        sandboxId: target.sandboxId,
      });
    } catch (e) {
      throw await explainFailure(target, e);
    }
    if (!info.Running && info.ExitCode !== null) return info.ExitCode;
    await sleep(50);
  }
  return undefined;
}

/**
 * Signals every process of the exec marked `marker` (see process-tree.ts), retrying while the container
 * has no pid to spare. Resolves true when the helper ran to completion.
 */
export async function killProcessTree(
  target: ExecTarget,
  marker: string,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<boolean> {
  const deadline = Date.now() + KILL_DEADLINE_MS;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    try {
      const helper = await openExec(target, { argv: killTreeArgv(marker, signal), env: [], stdin: false });
      helper.socket.resume();
      await Promise.race([socketClosed(helper.socket), sleep(Math.max(0, deadline - Date.now()))]);
      helper.socket.destroy();
      // A full pids cgroup makes the engine report the helper's start failure as exit 126 or 127.
      if ((await execExitCode(target, helper.exec)) === 0) return true;
    } catch {
      // A closed or dead container has nothing left to kill; anything else is worth another try.
      if (
        !(await target.assertUsable().then(
          () => true,
          () => false,
        ))
      )
        return false;
    }
    await sleep(Math.min(50 * 2 ** attempt, 1000));
  }
  return false;
}

/**
 * SIGKILLs the exec marked `marker` for good: the engine starts an exec's process some time after the
 * exec was opened, and a walk before that finds nothing, so the walk repeats until the exec has ended
 * (`ended` settles), and once more after, for what it left behind. Resolves false if a walk could not run.
 */
export async function killUntilEnded(
  target: ExecTarget,
  marker: string,
  ended: Promise<unknown>,
): Promise<boolean> {
  let over = false;
  void ended.finally(() => {
    over = true;
  });
  while (!over) {
    if (!(await killProcessTree(target, marker))) return false;
    await Promise.race([ended, sleep(20)]).catch(() => {});
  }
  return killProcessTree(target, marker);
}
