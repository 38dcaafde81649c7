/** Text helpers the parsers share; each follows the Python behaviour the official parsers rely on. */

/** Python's `str.split()`: split on runs of whitespace, no empty fields. */
export function pySplit(line: string): string[] {
  return line.split(/[\s\x1c-\x1f]+/).filter(Boolean);
}

const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;

/** Removes terminal colour and cursor sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
