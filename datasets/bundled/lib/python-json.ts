/**
 * `json.dumps(value)` as Python writes it with default settings: `", "` and `": "` separators and every
 * character outside printable ASCII escaped. The published SWE-bench and SWE-PDB files store their list
 * columns this way, so rows we write compare equal as text, not only as data.
 */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`);
    return `{${fields.join(', ')}}`;
  }
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  throw new TypeError(`pythonJsonDumps: cannot encode a ${typeof value}`);
}
