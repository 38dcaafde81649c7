import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DatasetError, errorMessage } from '../../src/errors.ts';
import { readTree, writeTree } from './lib/file-tree.ts';
import { git } from './lib/git.ts';

/** The fields of a bundled SWE row that decide its repository. */
export interface MaterializableRow {
  /** `sandgym/<project>`: the project under `projectsDir`. */
  repo: string;
  /** The gold fix (non-test files). */
  patch: string;
  /** The tests that expose the bug, hidden from the agent. */
  test_patch: string;
  /** When given, the built commit must have exactly this hash. */
  base_commit?: string;
}

/**
 * Everything that goes into the commit object besides the tree, fixed so that the same files always
 * give the same hash: that hash is the task's `base_commit`.
 */
export const BASE_COMMIT_IDENTITY = {
  name: 'sandgym',
  email: 'tasks@sandgym.invalid',
  date: '1735689600 +0000',
  message: 'Initial commit',
} as const;

/**
 * Builds the repository an agent starts from: the clean project with `test_patch` and `patch`
 * reverse-applied, committed as the single root commit of a fresh repository on branch `main`.
 * `destDir` must be absent or empty. Throws a `DatasetError` when a patch does not reverse-apply
 * or the result does not match `row.base_commit`.
 */
export async function materializeRepo(
  row: MaterializableRow,
  projectsDir: string,
  destDir: string,
): Promise<{ baseCommit: string }> {
  const project = projectOf(row.repo);
  await checkout(projectsDir, project, destDir);
  for (const [field, patch] of [
    ['test_patch', row.test_patch],
    ['patch', row.patch],
  ] as const) {
    try {
      await git(['apply', '-R', '--whitespace=nowarn', '-'], { cwd: destDir, input: patch });
    } catch (e) {
      throw new DatasetError(
        `${row.repo}: ${field} does not reverse-apply to projects/${project}: ${errorMessage(e)}`,
        {
          cause: e,
        },
      );
    }
  }
  const baseCommit = await commitAll(destDir);
  if (row.base_commit !== undefined && row.base_commit !== baseCommit) {
    throw new DatasetError(
      `${row.repo}: materialized commit ${baseCommit} differs from the row's base_commit ${row.base_commit}; ` +
        `projects/${project} changed since the dataset was built: rerun datasets/bundled/build.ts`,
    );
  }
  return { baseCommit };
}

/**
 * The clean project committed the same way: the state every task of the project is fixed to, and the
 * commit its rows name as `environment_setup_commit`.
 */
export async function materializeProject(
  project: string,
  projectsDir: string,
  destDir: string,
): Promise<{ commit: string }> {
  await checkout(projectsDir, project, destDir);
  return { commit: await commitAll(destDir) };
}

async function checkout(projectsDir: string, project: string, destDir: string): Promise<void> {
  const tree = await readTree(join(projectsDir, project));
  if (tree.size === 0)
    throw new DatasetError(`project directory ${join(projectsDir, project)} is missing or empty`);
  await mkdir(destDir, { recursive: true });
  if ((await readdir(destDir)).length > 0) {
    throw new DatasetError(
      `sandgym/${project}: cannot materialize into ${destDir}: the directory is not empty`,
    );
  }
  await writeTree(destDir, tree);
  await git(['init', '-q', '-b', 'main', '--template='], { cwd: destDir });
}

/** `sandgym/<project>` → `<project>`. */
export function projectOf(repo: string): string {
  const match = /^sandgym\/([a-z0-9][a-z0-9_-]*)$/.exec(repo);
  if (!match) throw new DatasetError(`repo "${repo}" is not a bundled project; expected "sandgym/<project>"`);
  return match[1]!;
}

/** Commits every file of the work tree as a root commit with the fixed identity; returns its hash. */
async function commitAll(dir: string): Promise<string> {
  const { name, email, date, message } = BASE_COMMIT_IDENTITY;
  const env = {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
    GIT_COMMITTER_DATE: date,
  };
  await git(['add', '-A'], { cwd: dir });
  await git(['commit', '-q', '--no-verify', '--no-gpg-sign', '-m', message], { cwd: dir, env });
  return (await git(['rev-parse', 'HEAD'], { cwd: dir })).trim();
}
