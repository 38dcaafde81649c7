import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import { ConfigError } from '../../errors.ts';

/**
 * How a command's whole process tree is found and killed inside a container.
 *
 * `docker exec` has no kill, and a command's children may leave its process group and session
 * (`setsid`) or be re-parented to pid 1 (`(cmd &)`, daemons). What they keep is their environment: every
 * exec carries `SANDGYM_EXEC=<marker>`, a random marker of fixed length (so one cannot be a prefix of
 * another), and a second exec walks /proc for processes whose environment holds it, and for their
 * children (which catches `env -i cmd`). Only a process that both clears its environment and leaves the
 * tree escapes; the container's own kill at close() catches those.
 *
 * The walker uses shell builtins only (glob, read, case, kill), so it still works when a fork bomb holds
 * every pid the container may have: it needs one process, its own. It first stops every marked process
 * (a stopped process cannot fork), repeating the walk until a pass finds nothing new, then signals them
 * all, and continues them when the signal is not SIGKILL so that they receive it.
 */
export const EXEC_MARKER_ENV = 'SANDGYM_EXEC';

export function newExecMarker(): string {
  return randomBytes(12).toString('hex');
}

export function markerEnv(marker: string): string {
  return `${EXEC_MARKER_ENV}=${marker}`;
}

// dash and busybox `read` drop NUL bytes, so an environ file reads as one line of all its variables.
// A stat line is "pid (comm) state ppid …" and comm may hold spaces, so fields are counted after ") ".
const KILL_TREE_SCRIPT = [
  'm="$1"; sig="$2"; seen=" "; more=1; cd /proc || exit 1',
  'while [ -n "$more" ]; do',
  '  more=',
  '  for p in [0-9]*; do',
  '    case "$seen" in *" $p "*) continue ;; esac',
  '    e=; st=',
  '    IFS= read -r e 2>/dev/null < "$p/environ"',
  '    IFS= read -r st 2>/dev/null < "$p/stat"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
  '    st="${st##*) }"; set -- $st; pp="$2"',
  '    case "$e" in *"$m"*) ;; *) case "$seen" in *" $pp "*) ;; *) continue ;; esac ;; esac',
  '    kill -STOP "$p" 2>/dev/null; seen="$seen$p "; more=1',
  '  done',
  'done',
  'kill -"$sig" $seen 2>/dev/null',
  '[ "$sig" = KILL ] || kill -CONT $seen 2>/dev/null',
  'exit 0',
].join('\n');

/** The argv of the helper exec that signals every process carrying `marker`. */
export function killTreeArgv(marker: string, signal: NodeJS.Signals = 'SIGKILL'): string[] {
  return ['/bin/sh', '-c', KILL_TREE_SCRIPT, 'sandgym-kill', markerEnv(marker), signalName(signal)];
}

/** `SIGTERM` → `TERM`, rejecting names the host does not know. */
export function signalName(signal: NodeJS.Signals): string {
  if (!(signal in constants.signals)) {
    throw new ConfigError(`unknown signal "${signal}"; use a name like SIGTERM or SIGKILL`);
  }
  return signal.replace(/^SIG/, '');
}

/** The signal that an exit code of 128+N reports, if N is a known signal. */
export function signalOfExitCode(exitCode: number): NodeJS.Signals | null {
  if (exitCode <= 128) return null;
  const n = exitCode - 128;
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}
