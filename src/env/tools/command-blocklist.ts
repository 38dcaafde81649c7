/**
 * Which commands `execute_bash` refuses. R2E-Gym refuses commands whose first word is `git` (the road to
 * future commits), `ipython` or `jupyter` (interactive, they would wait for input until the deadline) and
 * `nohup` (processes that outlive the step). An entry is one or more leading words: `git` refuses every
 * git command, `git log` only that one.
 *
 * This is a nudge, not a wall: shell syntax has endless ways around it. What keeps the future out of reach
 * is the scrubbed git history (`prepareSandbox`), and what keeps the grader honest is grading on a fresh
 * sandbox.
 */
export const R2E_GYM_BLOCKLIST: readonly string[] = ['git', 'ipython', 'jupyter', 'nohup'];

/** Words that run the command after them, so `sudo git log` is still `git log`. */
const WRAPPERS = new Set(['sudo', 'env', 'command', 'exec', 'time', 'nice', 'builtin']);

/** The blocklist entry `command` runs into, checking every simple command in it, or undefined. */
export function blockedBy(command: string, blocklist: readonly string[]): string | undefined {
  const entries = blocklist.map((e) => e.trim().split(/\s+/)).filter((e) => e[0] !== '');
  for (const segment of command.split(/&&|\|\||[;|&\n()`]|\$\(/)) {
    const words = leadingWords(segment);
    const hit = entries.find((entry) => entry.every((w, i) => words[i] === w));
    if (hit) return hit.join(' ');
  }
  return undefined;
}

/** The words of a simple command with assignments (`A=1`), wrappers and a program's directory removed. */
function leadingWords(segment: string): string[] {
  const words = segment
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^['"]|['"]$/g, ''))
    .filter((w) => w !== '');
  while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!) || WRAPPERS.has(words[0]!))) {
    words.shift();
  }
  if (words.length > 0) words[0] = words[0]!.slice(words[0]!.lastIndexOf('/') + 1);
  return words;
}
