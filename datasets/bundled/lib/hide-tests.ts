import { DatasetError } from '../../../src/errors.ts';

/**
 * Removes the top-level test function `name` (with its decorators and the blank lines that separated
 * it from the next definition) from a Python test module.
 *
 * The function's extent comes from layout, which our test modules keep regular: its decorators are the
 * lines directly above the `def` (no blank line between), and its body is every following line that
 * is blank or indented.
 */
export function removeTestFunction(source: string, name: string, where: string): string {
  const lines = source.split('\n');
  const definition = new RegExp(`^(async )?def ${name}\\(`);
  const found = lines.flatMap((line, i) => (definition.test(line) ? [i] : []));
  if (found.length !== 1) {
    throw new DatasetError(`${where}: expected one top-level "def ${name}(", found ${found.length}`);
  }
  const def = found[0]!;
  let start = def;
  while (start > 0 && lines[start - 1]!.trim() !== '') start--;
  if (start < def && !lines[start]!.startsWith('@')) {
    throw new DatasetError(
      `${where}: the lines above "def ${name}(" are not decorators; separate them with a blank line`,
    );
  }
  let end = def + 1;
  while (end < lines.length && (lines[end]!.trim() === '' || /^\s/.test(lines[end]!))) end++;
  while (end > def + 1 && lines[end - 1]!.trim() === '') end--;
  let next = end;
  while (next < lines.length && lines[next]!.trim() === '') next++;
  if (next === lines.length) {
    // Last definition of the module: drop the blank lines before it instead of after it.
    while (start > 0 && lines[start - 1]!.trim() === '') start--;
    return `${lines.slice(0, start).join('\n')}\n`;
  }
  return [...lines.slice(0, start), ...lines.slice(next)].join('\n');
}
