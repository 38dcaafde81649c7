import { shellQuote } from '../../tasks/index.ts';

/** bash where the image has it (agents write bash, and SWE-bench's conda setup `source`s), else sh. */
const PICK_SHELL = 'if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; else exec sh -c "$1"; fi';

/**
 * The argv that runs `script` after the task's setup lines (`TestSpec.setup`: SWE-bench's conda
 * activation, the debug tasks' `python` shim), so the agent's commands see the same Python as the tests.
 */
export function shellArgv(setup: string, script: string): string[] {
  return ['sh', '-c', PICK_SHELL, 'sh', setup === '' ? script : `${setup}\n${script}`];
}

/** A command line that runs `argv` as the shell's last act. */
export function execLine(argv: readonly string[]): string {
  return `exec ${argv.map(shellQuote).join(' ')}`;
}
