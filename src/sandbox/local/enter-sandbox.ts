import { SandboxError } from '../../errors.ts';
import type { HostChild, SpawnHost } from './fork-server.ts';
import type { HostTools } from './host-tools.ts';
import type { ExecGroup } from './limit-driver.ts';
import { entryArgs } from './limit-entry.ts';

export interface EnterParams {
  sandboxId: string;
  tools: HostTools;
  spawn: SpawnHost;
  initPid: number;
  group: ExecGroup;
  /** The command's whole environment (nothing of the host's is passed on). */
  env: Record<string, string>;
  /** Absolute working directory inside the sandbox. */
  cwd: string;
  argv: readonly string[];
  stdin: 'pipe' | 'ignore';
}

/**
 * Starts `argv` inside a running sandbox: sandgym-helper joins the exec's limit group, enters all of
 * pid 1's namespaces (its user namespace last) and its root, becomes root inside (the sandbox's host
 * uid, with Docker's default capabilities in its namespace only, no_new_privs, a new session keyring and
 * the seccomp filter), and runs the command in `cwd`. The host process is its own process group (the
 * rlimit driver kills by group).
 */
export async function enterSandbox(p: EnterParams): Promise<HostChild> {
  const args = ['enter', ...entryArgs(p.group.entry()), String(p.initPid), p.cwd, '--', ...p.argv];
  let child: HostChild;
  try {
    child = await p.spawn(p.tools.helper, args, {
      env: p.env,
      stdio: [p.stdin, 'pipe', 'pipe'],
      detached: true,
    });
  } catch (e) {
    throw startFailure(p.sandboxId, e as Error);
  }
  if (child.pid !== undefined) p.group.attach(child.pid);
  return child;
}

/**
 * Kills an entered command's whole tree. Its host process joins the exec's group itself, a moment after
 * it starts: a kill in that moment finds the group empty, so the process is killed by pid too (before it
 * has joined it has started nothing; after, the group's kill takes it and everything it started).
 */
export function killEntered(child: HostChild, group: ExecGroup): Promise<void> {
  child.kill('SIGKILL');
  return group.kill();
}

/** The error for a command the host could not even start (out of processes or memory): retry later. */
export function startFailure(sandboxId: string, e: Error): SandboxError {
  return new SandboxError(sandboxId, `could not start a command: ${e.message}`, {
    cause: e,
    isRetryable: true,
  });
}
