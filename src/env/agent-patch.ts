import { SandboxError } from '../errors.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { diffFiles } from '../tasks/index.ts';
import { R2E_HIDDEN_PATHS } from './prepare.ts';

/** A diff bigger than this is not a fix: it counts as no patch rather than being cut. */
export const MAX_PATCH_BYTES = 64 * 1024 * 1024;

/**
 * Exit codes of the script below for a repository the agent destroyed: no repository at all, or the
 * episode's base commit gone. That is the agent's doing, so its patch is empty (reward 0), never an error
 * that would mask the episode from training.
 */
const NO_REPO = 3;
const NO_BASE = 4;

const DIFF_SCRIPT = `
git rev-parse --git-dir >/dev/null 2>&1 || exit ${NO_REPO}
git cat-file -e "$1^{commit}" 2>/dev/null || exit ${NO_BASE}
git add -A || exit 1
exec git -c diff.noprefix=false -c color.ui=false diff --cached --binary --no-renames --no-ext-diff \\
  --no-color --src-prefix=a/ --dst-prefix=b/ "$@"`;

/**
 * The agent's changes: `git add -A && git diff --cached <base>` (binary files included so the patch always
 * applies, renames as delete + add so `patch` can apply it too), leaving out the files the grader puts in
 * place itself (the test patch's files, R2E-Gym's hidden tests, a debug task's read-only files).
 */
export async function agentPatch(
  sandbox: Sandbox,
  task: Task,
  base: string,
  options: { timeoutMs: number },
): Promise<string> {
  const excludes = graderOwnedPaths(task).map((p) => `:(exclude,literal)${p}`);
  const r = await sandbox.exec(['sh', '-c', DIFF_SCRIPT, 'sh', base, '--', '.', ...excludes], {
    cwd: task.test.workdir,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: MAX_PATCH_BYTES,
  });
  if (r.exitCode === NO_REPO || r.exitCode === NO_BASE) return '';
  if (r.exitCode !== 0 || r.timedOut) {
    const why = r.timedOut
      ? `timed out after ${options.timeoutMs} ms`
      : `exit ${r.exitCode}: ${r.stderr.trim()}`;
    throw new SandboxError(sandbox.id, `taking the agent's diff in ${task.test.workdir} failed (${why})`);
  }
  // A cut patch would not apply; like a destroyed repository, a flood of changes is the agent's doing.
  return r.truncated ? '' : r.stdout;
}

/** Paths, relative to the repository, whose content the grader supplies whatever the agent did. */
export function graderOwnedPaths(task: Task): string[] {
  switch (task.kind) {
    case 'swe':
      return [
        ...new Set(
          diffFiles(task.testPatch).flatMap((f) => [f.oldPath, f.newPath].filter((p) => p !== null)),
        ),
      ];
    case 'r2e':
      return R2E_HIDDEN_PATHS.filter((p) => !p.startsWith('/'));
    case 'debug':
      return [...task.readOnly, '.debugreadonly', '.debugignore'];
  }
}
