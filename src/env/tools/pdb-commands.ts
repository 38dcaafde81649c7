/**
 * The pdb tool's reading of commands and replies, pure. Line numbers are 1-based as pdb counts them.
 */

/** pdb commands whose argument is a Python expression, where `;` and newlines belong to the expression. */
const EXPRESSION_COMMANDS = new Set(['p', 'pp']);

/**
 * SWE-PDB runs only the first of several commands joined by `;` or newlines (pdb itself would read
 * `b 12; c` as a breakpoint with a strange condition); `p`/`pp` keep the whole expression.
 */
export function firstCommand(command: string): { run: string; dropped: string | undefined } {
  const trimmed = command.trim();
  if (EXPRESSION_COMMANDS.has(commandWord(trimmed))) return { run: trimmed, dropped: undefined };
  const [first, ...rest] = trimmed.split(/[;\n]/);
  const dropped = rest.join(';').trim();
  return { run: first!.trim(), dropped: dropped === '' ? undefined : dropped };
}

/** The command's first word: `b`, `break`, `p`, … */
export function commandWord(command: string): string {
  return command.trim().split(/\s+/, 1)[0] ?? '';
}

export const BREAK_COMMANDS = new Set(['b', 'break', 'tbreak']);
export const CLEAR_COMMANDS = new Set(['cl', 'clear']);
export const QUIT_COMMANDS = new Set(['q', 'quit', 'exit']);

/** A `b`/`break`/`tbreak` with a line location: where, and the condition after the comma. */
export interface BreakAtLine {
  /** As written (relative or absolute), or undefined for "the current file". */
  file: string | undefined;
  line: number;
  condition: string | undefined;
  temporary: boolean;
}

/** The line location of a break command, or undefined (a listing, a function name, not a break at all). */
export function parseBreakAtLine(command: string): BreakAtLine | undefined {
  const word = commandWord(command);
  if (!BREAK_COMMANDS.has(word)) return undefined;
  const arg = command.trim().slice(word.length).trim();
  if (arg === '') return undefined;
  const comma = arg.indexOf(',');
  const location = (comma === -1 ? arg : arg.slice(0, comma)).trim();
  const condition = comma === -1 ? undefined : arg.slice(comma + 1).trim() || undefined;
  const m = /^(?:(.+):)?(\d+)$/.exec(location);
  if (!m) return undefined;
  return { file: m[1]?.trim(), line: Number(m[2]), condition, temporary: word === 'tbreak' };
}

const HEADER_START = /^\s*(?:async\s+def|def|class)\b/;
const DECORATOR = /^\s*@/;

/** A `def`/`class` statement's header: from its first decorator to the line ending in its colon. */
export interface DefinitionHeader {
  startLine: number;
  /** The `def`/`class` line itself. */
  defLine: number;
  /** The line holding the header's closing colon. */
  endLine: number;
  /** The function or class name. */
  name: string;
  /** The body follows the colon on the header's last line. */
  inlineBody: boolean;
}

/**
 * The definition header that `line` falls in (a decorator, the `def`/`class` line, or a continuation line
 * of a long signature). A breakpoint there fires once, when the definition runs, never on a call.
 */
export function definitionHeaderAt(lines: readonly string[], line: number): DefinitionHeader | undefined {
  const idx = line - 1;
  if (idx < 0 || idx >= lines.length) return undefined;
  let def = -1;
  if (DECORATOR.test(lines[idx]!)) {
    for (let i = idx + 1; i < Math.min(lines.length, idx + 30); i++) {
      if (HEADER_START.test(lines[i]!)) {
        def = i;
        break;
      }
    }
  } else {
    for (let i = idx; i >= Math.max(0, idx - 30); i--) {
      if (HEADER_START.test(lines[i]!)) {
        def = i;
        break;
      }
    }
  }
  if (def === -1) return undefined;
  const { end, inlineBody } = headerEnd(lines, def);
  let start = def;
  while (start > 0 && DECORATOR.test(lines[start - 1]!)) start--;
  if (idx < start || idx > end) return undefined;
  const name = /(?:def|class)\s+([A-Za-z_]\w*)/.exec(lines[def]!)?.[1] ?? '';
  return { startLine: start + 1, defLine: def + 1, endLine: end + 1, name, inlineBody };
}

/**
 * Where the header opened at `def` ends: the first colon outside brackets and string literals, and whether
 * code follows it on the same line (`def f(): return 1`).
 */
function headerEnd(lines: readonly string[], def: number): { end: number; inlineBody: boolean } {
  let depth = 0;
  for (let i = def; i < Math.min(lines.length, def + 50); i++) {
    const line = lines[i]!;
    let quote = '';
    for (let c = 0; c < line.length; c++) {
      const ch = line[c]!;
      if (quote) {
        if (ch === '\\') c++;
        else if (ch === quote) quote = '';
      } else if (ch === '#') {
        break;
      } else if (ch === '"' || ch === "'") {
        quote = ch;
      } else if ('([{'.includes(ch)) {
        depth++;
      } else if (')]}'.includes(ch)) {
        depth--;
      } else if (ch === ':' && depth === 0) {
        return { end: i, inlineBody: stripComment(line.slice(c + 1)).trim() !== '' };
      }
    }
  }
  return { end: def, inlineBody: false };
}

function stripComment(line: string): string {
  const hash = line.indexOf('#');
  return hash === -1 ? line : line.slice(0, hash);
}

/**
 * The first line of the body where a breakpoint fires on every call: after the header, skipping blank
 * lines, comments and the docstring, and into the first method of a class. Undefined when the body sits on
 * the header line (`def f(): return 1`).
 */
export function firstBodyLine(lines: readonly string[], header: DefinitionHeader): number | undefined {
  if (header.inlineBody) return undefined;
  const indent = indentation(lines[header.defLine - 1]!);
  let i = header.endLine;
  let docstringSkipped = false;
  while (i < lines.length) {
    const text = lines[i]!.trim();
    if (text === '' || text.startsWith('#')) {
      i++;
      continue;
    }
    if (indentation(lines[i]!) <= indent) return undefined;
    const quote = /^[rRbBuU]?("""|''')/.exec(text)?.[1];
    if (quote && !docstringSkipped) {
      docstringSkipped = true;
      const rest = text.slice(text.indexOf(quote) + 3);
      let j = i;
      if (!rest.includes(quote)) {
        j++;
        while (j < lines.length && !lines[j]!.includes(quote)) j++;
      }
      i = j + 1;
      continue;
    }
    // A class body or a nested def starts with another header, where a breakpoint would be refused too.
    const nested = definitionHeaderAt(lines, i + 1);
    return nested ? firstBodyLine(lines, nested) : i + 1;
  }
  return undefined;
}

function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

/** A breakpoint as pdb reported it. */
export interface ReportedBreakpoint {
  number: number;
  file: string;
  line: number;
}

/** Breakpoints pdb says it set: `Breakpoint 1 at /testbed/solution.py:12`. */
export function parseSetBreakpoints(output: string): ReportedBreakpoint[] {
  return [...output.matchAll(/^Breakpoint (\d+) at (.+):(\d+)\s*$/gm)].map((m) => ({
    number: Number(m[1]),
    file: m[2]!,
    line: Number(m[3]),
  }));
}

/** Breakpoints pdb says it deleted: `Deleted breakpoint 1 at /testbed/solution.py:12`. */
export function parseDeletedBreakpoints(output: string): ReportedBreakpoint[] {
  return [...output.matchAll(/^Deleted breakpoint (\d+) at (.+):(\d+)\s*$/gm)].map((m) => ({
    number: Number(m[1]),
    file: m[2]!,
    line: Number(m[3]),
  }));
}

/** The file of the frame pdb stopped in last: `> /testbed/solution.py(12)add()`. */
export function currentFrameFile(output: string): string | undefined {
  const all = [...output.matchAll(/^> (.+)\((\d+)\)[^\n]*$/gm)];
  return all.length > 0 ? all[all.length - 1]![1] : undefined;
}
