import { diffFiles, shellQuote } from '../tasks/index.ts';

/** Where the patch under evaluation is written, as SWE-bench does. */
export const PATCH_FILE = '/tmp/patch.diff';

/**
 * SWE-bench's ways of applying a patch, tried in order until one succeeds (run_evaluation.GIT_APPLY_CMDS,
 * v5.0.1): plain `git apply`, a three-way merge, `--reject` (keeps the hunks that apply), and GNU patch
 * with fuzz. `--forward` keeps patch from reverse-applying a patch that looks already applied, which
 * `--batch` alone would do.
 */
export const PATCH_APPLY_COMMANDS = [
  'git apply --verbose',
  'git apply --verbose --3way',
  'git apply --verbose --reject',
  'patch --batch --forward --fuzz=5 -p1 -i',
] as const;

/** Succeeds when the patch is already in the tree (every command above then fails). */
export const ALREADY_APPLIED_CHECK = `git apply --check --reverse ${PATCH_FILE}`;

/**
 * Undoes what a failed attempt left behind, before the next one — a `--reject` attempt keeps the hunks
 * that applied and writes `.rej` files, which would make every later attempt fail. Only the files the
 * patch names are touched: each goes back to its committed content, or is removed when it is not
 * committed, along with its `.rej` and `.orig` leftovers. (SWE-bench 5 resets the whole tree instead,
 * which would also delete untracked files such as a repository's virtualenv.)
 */
export function restoreCommand(patch: string): string {
  const paths = new Set<string>();
  for (const file of diffFiles(patch)) {
    if (file.oldPath) paths.add(file.oldPath);
    if (file.newPath) paths.add(file.newPath);
  }
  return [...paths]
    .map((p) => {
      const q = shellQuote(p);
      return `{ git checkout -q HEAD -- ${q} 2>/dev/null || rm -f -- ${q}; rm -f -- ${shellQuote(`${p}.rej`)} ${shellQuote(`${p}.orig`)}; }`;
    })
    .join('\n');
}
