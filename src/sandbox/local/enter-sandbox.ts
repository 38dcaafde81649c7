import { SandboxError } from '../../errors.ts';
import type { HostChild, SpawnHost } from './fork-server.ts';
import type { HostTools } from './host-tools.ts';
import type { ExecGroup } from './limit-driver.ts';
import { entryArgs, entryScript } from './limit-entry.ts';

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
 * Starts `argv` inside a running sandbox. sandgym-helper joins the exec's limit group, enters all of
 * pid 1's namespaces (its user namespace last, so root inside has capabilities only there) and its root, and runs the
 * command in `cwd`. Without the helper a host shell joins the group and becomes nsenter; nsenter 2.38
 * resolves `--wd=<dir>` on the host, so there a non-root cwd is entered by the sandbox's own shell.
 * The host process is its own process group (the rlimit driver kills by group).
 */
export async function enterSandbox(p: EnterParams): Promise<HostChild> {
  const [file, args] = p.tools.helper
    ? [p.tools.helper, ['enter', ...entryArgs(p.group.entry()), String(p.initPid), p.cwd, '--', ...p.argv]]
    : ['/bin/sh', nsenterArgs(p)];
  let child: HostChild;
  try {
    child = await p.spawn(file, args, { env: p.env, stdio: [p.stdin, 'pipe', 'pipe'], detached: true });
  } catch (e) {
    throw startFailure(p.sandboxId, e as Error);
  }
  if (child.pid !== undefined) p.group.attach(child.pid);
  return child;
}

function nsenterArgs(p: EnterParams): string[] {
  const namespaces = ['-U', '-m', '-p', '-n', '-i', '-u', '-C', '-r', '-w'];
  const cd = p.cwd === '/' ? [] : ['/bin/sh', '-c', 'cd -- "$0" || exit 1; exec "$@"', p.cwd];
  const join = `${entryScript(p.group.entry())} && exec "$@"`;
  return [
    '-c',
    join,
    'sandgym-exec',
    p.tools.nsenter,
    '-t',
    String(p.initPid),
    ...namespaces,
    ...cd,
    ...p.argv,
  ];
}

/** The error for a command the host could not even start (out of processes or memory): retry later. */
export function startFailure(sandboxId: string, e: Error): SandboxError {
  return new SandboxError(sandboxId, `could not start a command: ${e.message}`, {
    cause: e,
    isRetryable: true,
  });
}
