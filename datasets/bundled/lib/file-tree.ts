import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DatasetError, errorMessage } from '../../../src/errors.ts';

/** A directory's text files: POSIX path relative to the root → content. */
export type FileTree = Map<string, string>;

/** Caches that running Python or pytest leaves behind; never part of a project. */
const IGNORED_NAMES = new Set(['__pycache__', '.pytest_cache', '.git', '.mypy_cache', '.ruff_cache']);

function isIgnored(name: string): boolean {
  return IGNORED_NAMES.has(name) || name.endsWith('.pyc') || name.endsWith('.egg-info');
}

/** Reads every file under `root` (sorted by path), skipping caches. Symlinks are refused. */
export async function readTree(root: string): Promise<FileTree> {
  const tree: FileTree = new Map();
  async function walk(relative: string): Promise<void> {
    const entries = await readdir(join(root, relative), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (isIgnored(entry.name)) continue;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) tree.set(path, await readFile(join(root, path), 'utf8'));
      else
        throw new DatasetError(
          `${join(root, path)}: only regular files and directories can be part of a task`,
        );
    }
  }
  try {
    await walk('');
  } catch (e) {
    if (e instanceof DatasetError) throw e;
    throw new DatasetError(`cannot read the files of ${root}: ${errorMessage(e)}`, { cause: e });
  }
  return tree;
}

/**
 * Writes `tree` under `root`. Every file gets mode 0644 whatever the source had, because git records
 * the executable bit and commit hashes must not depend on the checkout they were built from.
 */
export async function writeTree(root: string, tree: FileTree): Promise<void> {
  for (const [path, content] of tree) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    await chmod(target, 0o644);
  }
}
