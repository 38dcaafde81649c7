import { join } from 'node:path';
import { DatasetError } from '../../../src/errors.ts';
import { materializeProject } from '../materialize.ts';
import { type FileTree, readTree } from './file-tree.ts';

/** What every task of one bundled project shares. */
export interface ProjectInfo {
  name: string;
  /** The clean (fixed) sources. */
  tree: FileTree;
  /** SWE-bench-style `major.minor` from pyproject.toml. */
  version: string;
  /** Hash of the clean project committed like a task's base: the rows' `environment_setup_commit`. */
  setupCommit: string;
}

export async function loadProject(projectsDir: string, name: string, workDir: string): Promise<ProjectInfo> {
  const tree = await readTree(join(projectsDir, name));
  const pyproject = tree.get('pyproject.toml');
  const version = pyproject && /^version\s*=\s*"(\d+\.\d+)[.\d]*"/m.exec(pyproject)?.[1];
  if (!version) throw new DatasetError(`projects/${name}/pyproject.toml: no version = "X.Y.Z" found`);
  const { commit } = await materializeProject(name, projectsDir, join(workDir, `${name}-clean`));
  return { name, tree, version, setupCommit: commit };
}
