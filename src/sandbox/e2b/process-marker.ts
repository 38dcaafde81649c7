import { randomBytes } from 'node:crypto';
import type { ProcessConfig } from './process-messages.ts';

/**
 * Every command the e2b provider starts carries `SANDGYM_EXEC_ID=<id>` in its environment, and so do
 * all its descendants, even those that called setsid. envd's SendSignal reaches only the command's own
 * pid; signalling everything that carries the marker reaches the whole tree on any E2B server.
 */
export const EXEC_MARKER = 'SANDGYM_EXEC_ID';

/** Random per process, so ids of commands started by different clients never collide. */
const ID_PREFIX = randomBytes(6).toString('hex');
let nextId = 0;

export function newExecId(): string {
  return `${ID_PREFIX}${(nextId++).toString(36)}`;
}

/** What envd starts for `argv`: the command, carrying the marker `execId` in its environment. */
export function markedProcess(
  execId: string,
  c: { argv: readonly string[]; env: Record<string, string> | undefined; cwd: string | undefined },
): ProcessConfig {
  return {
    cmd: c.argv[0]!,
    args: c.argv.slice(1),
    envs: { ...c.env, [EXEC_MARKER]: execId },
    ...(c.cwd !== undefined && { cwd: c.cwd }),
  };
}

/**
 * argv of a command that sends `signal` to every process carrying the marker `execId`. A SIGKILL sweep
 * repeats (up to 5 passes) so that children forked during a pass are caught by the next.
 */
export function signalMarkedArgv(execId: string, signal: NodeJS.Signals): string[] {
  const script = [
    'passes=1; [ "$1" = KILL ] && passes=5',
    'while [ "$passes" -gt 0 ]; do',
    '  passes=$((passes - 1)); found=',
    '  for d in /proc/[0-9]*; do',
    '    if tr "\\0" "\\n" < "$d/environ" 2>/dev/null | grep -qx "$2"; then',
    '      kill -s "$1" "$(basename "$d")" 2>/dev/null && found=1',
    '    fi',
    '  done',
    '  [ -n "$found" ] || break',
    'done',
  ].join('\n');
  return ['/bin/sh', '-c', script, 'sh', signal.replace(/^SIG/, ''), `${EXEC_MARKER}=${execId}`];
}
