import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileTree, writeTree } from './file-tree.ts';
import { git } from './git.ts';

/** SWE-bench's split of a change: test files go to `test_patch`, everything else to `patch`. */
export function isTestPath(path: string): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1]!;
  return (
    parts.slice(0, -1).some((dir) => dir === 'tests' || dir === 'test' || dir === 'testing') ||
    /^test_.*\.py$/.test(base) ||
    /_test\.py$/.test(base) ||
    base === 'conftest.py' ||
    base === 'test.py'
  );
}

/** Unified diffs (git format, `a/` and `b/` prefixes) from `before` to `after`, split like SWE-bench. */
export async function diffTrees(
  before: FileTree,
  after: FileTree,
): Promise<{ patch: string; testPatch: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-diff-'));
  try {
    await git(['init', '-q', '--template='], { cwd: dir });
    const beforeTree = await snapshot(dir, before);
    for (const path of before.keys()) if (!after.has(path)) await rm(join(dir, path));
    const afterTree = await snapshot(dir, after);
    const changed = (await git(['diff', '--name-only', '--no-renames', beforeTree, afterTree], { cwd: dir }))
      .split('\n')
      .filter(Boolean);
    const diff = async (paths: string[]) =>
      paths.length === 0
        ? ''
        : git(
            ['diff', '--no-color', '--no-ext-diff', '--no-renames', beforeTree, afterTree, '--', ...paths],
            {
              cwd: dir,
            },
          );
    return {
      patch: await diff(changed.filter((p) => !isTestPath(p))),
      testPatch: await diff(changed.filter(isTestPath)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function snapshot(dir: string, tree: FileTree): Promise<string> {
  await writeTree(dir, tree);
  await git(['add', '-A'], { cwd: dir });
  return (await git(['write-tree'], { cwd: dir })).trim();
}
