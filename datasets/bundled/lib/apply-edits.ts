import { DatasetError } from '../../../src/errors.ts';
import type { FileTree } from './file-tree.ts';
import type { Edit } from './task-source.ts';

/**
 * Turns the clean tree into the buggy one: each edit's `fixed` text, which must occur exactly once in
 * its file, becomes its `buggy` text. Edits apply in order, so two edits of one file see each other.
 */
export function applyEdits(clean: FileTree, edits: readonly Edit[], where: string): FileTree {
  const tree = new Map(clean);
  edits.forEach((edit, i) => {
    const label = `${where}: edits[${i}] (${edit.path})`;
    const content = tree.get(edit.path);
    if (content === undefined) throw new DatasetError(`${label}: no such file in the clean sources`);
    if (edit.fixed === edit.buggy) throw new DatasetError(`${label}: fixed and buggy are the same text`);
    const count = content.split(edit.fixed).length - 1;
    if (count !== 1) {
      throw new DatasetError(
        `${label}: the fixed text must occur exactly once, found ${count} times; ` +
          'quote more surrounding lines (YAML block scalars drop the indentation of the first line)',
      );
    }
    tree.set(
      edit.path,
      content.replace(edit.fixed, () => edit.buggy),
    );
  });
  for (const path of new Set(edits.map((e) => e.path))) {
    if (path.endsWith('.py') && oddGaps(tree.get(path)!) > oddGaps(clean.get(path)!)) {
      throw new DatasetError(
        `${where}: the edits leave extra blank lines in ${path}, a visible trace of removed code; ` +
          'remove the blank lines that followed it too (a |+ block scalar keeps them)',
      );
    }
  }
  return tree;
}

/** Runs of blank lines that PEP 8 layout never has: more than two, or more than one inside a block. */
function oddGaps(source: string): number {
  let gaps = 0;
  let run = 0;
  for (const line of source.split('\n')) {
    if (line.trim() === '') {
      run++;
      continue;
    }
    if (run > 2 || (run > 1 && /^\s/.test(line))) gaps++;
    run = 0;
  }
  return gaps;
}
