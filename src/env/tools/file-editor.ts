import type { ToolSpec } from '../../llm/types.ts';
import type { Tool, ToolContext, ToolResult } from '../types.ts';
import { viewDirectory, viewFile } from './file-view.ts';
import { readText, resolvePath, runHelper, statPath } from './sandbox-files.ts';
import { insertAfter, replaceUnique, snippet, splitLines } from './text-edits.ts';

const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const;
type Command = (typeof COMMANDS)[number];

const SPEC: ToolSpec = {
  type: 'function',
  function: {
    name: 'file_editor',
    description: [
      'View, create and edit files.',
      '* view: a file with line numbers (view_range [start, end] picks lines, end -1 means to the end of the',
      '  file), or a directory: its files and directories two levels deep, hidden ones left out.',
      '* create: writes a new file with file_text; refuses a path that already exists.',
      '* str_replace: replaces old_str by new_str (leave new_str empty to delete). old_str must match exactly',
      '  one place in the file, whitespace and indentation included; add surrounding lines to make it unique.',
      '* insert: inserts new_str as new lines after line insert_line (0 puts them at the top).',
      '* undo_edit: reverts the last edit made to path with this tool.',
      'Paths are absolute or relative to the repository.',
    ].join('\n'),
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: [...COMMANDS], description: 'What to do.' },
        path: { type: 'string', description: 'File or directory, e.g. /testbed/pkg/module.py.' },
        file_text: { type: 'string', description: 'create: the content of the new file.' },
        view_range: {
          type: 'array',
          items: { type: 'integer' },
          description:
            'view of a file: [start, end] line numbers, 1-based and inclusive; end -1 for the end.',
        },
        old_str: { type: 'string', description: 'str_replace: the exact text to replace.' },
        new_str: {
          type: 'string',
          description: 'str_replace: the replacement; insert: the lines to insert.',
        },
        insert_line: { type: 'integer', description: 'insert: the line after which new_str goes (0: top).' },
      },
      required: ['command', 'path'],
      additionalProperties: false,
    },
  },
};

const EDIT_ADVICE = 'Review the change and make sure it is what you meant; edit the file again if it is not.';

/**
 * R2E-Gym's `file_editor`, running through the Sandbox contract (no helper script in the image). It keeps
 * each file's edit history for `undo_edit` and refuses to change the task's read-only files.
 */
export class FileEditor implements Tool {
  readonly spec = SPEC;
  /** Earlier contents per path, newest last; `null`: the file did not exist. */
  private readonly history = new Map<string, (string | null)[]>();

  async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const command = args.command as Command;
    const path = resolvePath(ctx.repoDir, args.path as string);
    if (command === 'view') return { observation: await this.view(ctx, path, args.view_range as number[]) };
    if (ctx.readOnlyPaths.has(path)) {
      return {
        observation:
          `${path} is read-only in this task: it holds the tests that grade your work. ` +
          'Change the code under test instead.',
      };
    }
    switch (command) {
      case 'create':
        return this.create(ctx, path, args.file_text as string | undefined);
      case 'str_replace':
        return this.strReplace(ctx, path, args.old_str as string | undefined, (args.new_str as string) ?? '');
      case 'insert':
        return this.insert(
          ctx,
          path,
          args.insert_line as number | undefined,
          args.new_str as string | undefined,
        );
      case 'undo_edit':
        return this.undo(ctx, path);
    }
  }

  private async view(ctx: ToolContext, path: string, viewRange: number[] | undefined): Promise<string> {
    const { kind } = await statPath(ctx, path);
    if (kind === 'missing')
      return `${path} does not exist. View the directory above it to see what is there.`;
    if (kind === 'directory') {
      if (viewRange !== undefined) return `view_range applies to files; ${path} is a directory.`;
      return viewDirectory(ctx, path);
    }
    if (kind === 'other') return `${path} is not a regular file or a directory.`;
    return viewFile(ctx, path, viewRange);
  }

  private async create(ctx: ToolContext, path: string, fileText: string | undefined): Promise<ToolResult> {
    if (fileText === undefined)
      return { observation: 'create needs file_text: the content of the new file.' };
    const { kind } = await statPath(ctx, path);
    if (kind !== 'missing') {
      return {
        observation: `${path} already exists; create makes new files only. Use str_replace or insert to change it.`,
      };
    }
    await ctx.sandbox.writeFile(path, fileText);
    this.remember(path, null);
    return {
      observation: `Created ${path} (${plural(splitLines(fileText).length, 'line')}).`,
      edit: { path, before: null, after: fileText },
    };
  }

  private async strReplace(
    ctx: ToolContext,
    path: string,
    oldStr: string | undefined,
    newStr: string,
  ): Promise<ToolResult> {
    if (oldStr === undefined || oldStr === '') {
      return { observation: 'str_replace needs old_str: the exact text to replace (it cannot be empty).' };
    }
    if (oldStr === newStr) return { observation: 'old_str and new_str are the same; nothing would change.' };
    const file = await this.editableText(ctx, path);
    if (typeof file === 'string') return { observation: file };
    const r = replaceUnique(file.text, oldStr, newStr);
    if (r.kind === 'not_found') {
      const near =
        r.looseMatchLines.length > 0
          ? ` Text that differs only in whitespace or indentation starts at line ${r.looseMatchLines.join(', ')}; ` +
            'copy old_str exactly as view shows it.'
          : ' View the file to copy the exact text.';
      return { observation: `No replacement was made: old_str does not appear verbatim in ${path}.${near}` };
    }
    if (r.kind === 'ambiguous') {
      return {
        observation:
          `No replacement was made: old_str occurs ${r.lines.length} times in ${path}, at lines ` +
          `${r.lines.join(', ')}. Include more surrounding lines in old_str so that it matches exactly one place.`,
      };
    }
    await this.write(ctx, path, file, r.text);
    return {
      observation: editedObservation(path, r.text, r.startLine, r.newLineCount),
      edit: { path, before: file.text, after: r.text },
    };
  }

  private async insert(
    ctx: ToolContext,
    path: string,
    insertLine: number | undefined,
    newStr: string | undefined,
  ): Promise<ToolResult> {
    if (insertLine === undefined || newStr === undefined) {
      return {
        observation: 'insert needs insert_line (the line to insert after; 0 for the top) and new_str.',
      };
    }
    const file = await this.editableText(ctx, path);
    if (typeof file === 'string') return { observation: file };
    const r = insertAfter(file.text, insertLine, newStr);
    if (r.kind === 'out_of_range') {
      return { observation: `insert_line must be between 0 and ${r.lineCount} (the last line of ${path}).` };
    }
    await this.write(ctx, path, file, r.text);
    return {
      observation: editedObservation(path, r.text, r.startLine, r.newLineCount),
      edit: { path, before: file.text, after: r.text },
    };
  }

  private async undo(ctx: ToolContext, path: string): Promise<ToolResult> {
    const versions = this.history.get(path);
    const previous = versions?.pop();
    if (!versions || previous === undefined) return { observation: `There is no edit of ${path} to undo.` };
    const { kind, mode } = await statPath(ctx, path);
    const current = kind === 'file' ? await readText(ctx, path) : undefined;
    const before = current?.ok ? current.text : null;
    if (previous === null) {
      await runHelper(ctx, ['rm', '-f', '--', path]);
      return {
        observation: `Undid the creation of ${path}: the file is removed.`,
        edit: { path, before, after: null },
      };
    }
    await ctx.sandbox.writeFile(path, previous, { mode });
    const lines = splitLines(previous).length;
    return {
      observation: `Undid the last edit of ${path}; it is back to its previous ${plural(lines, 'line')}.`,
      edit: { path, before, after: previous },
    };
  }

  /** The file's text and mode when it can be edited, or an observation saying why not. */
  private async editableText(
    ctx: ToolContext,
    path: string,
  ): Promise<{ text: string; mode: number } | string> {
    const { kind, mode } = await statPath(ctx, path);
    if (kind === 'missing') return `${path} does not exist. Use create to make a new file.`;
    if (kind !== 'file') return `${path} is not a regular file.`;
    const read = await readText(ctx, path);
    if (!read.ok) return `Cannot edit: ${read.reason}. Use execute_bash for such files.`;
    return { text: read.text, mode };
  }

  private async write(ctx: ToolContext, path: string, file: { text: string; mode: number }, text: string) {
    await ctx.sandbox.writeFile(path, text, { mode: file.mode });
    this.remember(path, file.text);
  }

  private remember(path: string, previous: string | null): void {
    const versions = this.history.get(path) ?? [];
    versions.push(previous);
    this.history.set(path, versions);
  }
}

function editedObservation(path: string, text: string, startLine: number, lineCount: number): string {
  return (
    `The file ${path} has been edited. Here's the result of running \`cat -n\` on a snippet of it:\n` +
    `${snippet(text, startLine, lineCount)}\n${EDIT_ADVICE}`
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
