import { type ChildProcess, spawn } from 'node:child_process';
import { SandboxError } from '../../errors.ts';
import type { HostTools } from './host-tools.ts';
import type { ExecGroup } from './limit-driver.ts';

export interface EnterParams {
  sandboxId: string;
  tools: HostTools;
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
 * Starts `argv` inside a running sandbox: a host shell joins the exec's limit group, then becomes nsenter,
 * which enters all of pid 1's namespaces (user first, so root inside has capabilities only there) and
 * its root. nsenter 2.38 resolves `--wd=<dir>` on the host, so a non-root cwd is entered by the sandbox's
 * own shell. The host process is its own process group (the rlimit driver kills by group).
 */
export function enterSandbox(p: EnterParams): ChildProcess {
  const namespaces = ['-U', '-m', '-p', '-n', '-i', '-u', '-C', '-r', '-w'];
  const cd = p.cwd === '/' ? [] : ['/bin/sh', '-c', 'cd -- "$0" || exit 1; exec "$@"', p.cwd];
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `${p.group.enterScript()} && exec "$@"`,
      'sandgym-exec',
      p.tools.nsenter,
      '-t',
      String(p.initPid),
      ...namespaces,
      ...cd,
      ...p.argv,
    ],
    { env: p.env, stdio: [p.stdin, 'pipe', 'pipe'], detached: true },
  );
  if (child.pid !== undefined) p.group.attach(child.pid);
  return child;
}

/** The error for a command the host could not even start (out of processes or memory): retry later. */
export function startFailure(sandboxId: string, e: Error): SandboxError {
  return new SandboxError(sandboxId, `could not start a command: ${e.message}`, {
    cause: e,
    isRetryable: true,
  });
}
