import type { ToolSpec } from '../../llm/types.ts';
import type { FileEdit, Tool, ToolContext, ToolResult } from '../types.ts';
import {
  BREAK_COMMANDS,
  CLEAR_COMMANDS,
  commandWord,
  currentFrameFile,
  definitionHeaderAt,
  firstBodyLine,
  firstCommand,
  parseBreakAtLine,
  parseDeletedBreakpoints,
  parseSetBreakpoints,
  QUIT_COMMANDS,
} from './pdb-commands.ts';
import { type PdbReply, PdbSession } from './pdb-session.ts';
import { readText, resolvePath, statPath } from './sandbox-files.ts';
import { changedRegion, splitLines } from './text-edits.ts';

const SPEC: ToolSpec = {
  type: 'function',
  function: {
    name: 'pdb',
    description: [
      'The Python debugger, one live session kept between calls.',
      'Start it with command "start", a runner and a file:',
      '* runner "python", file "main.py": runs python -m pdb main.py',
      '* runner "pytest", file "test.py": runs the tests of test.py under pdb',
      '* runner "pytest", file "test.py::test_name": stops at the start of that one test (pytest --trace)',
      'Then send pdb commands one at a time: b file:line (set a breakpoint inside a function body, not on its',
      'def line), c, n, s, p expr, pp expr, l, ll, cl, where, bt, q. After you edit the code, the session',
      'restarts from the beginning with your breakpoints kept.',
    ].join('\n'),
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          description: '"start", or one pdb command such as "b solution.py:12" or "p x".',
        },
        runner: { type: 'string', enum: ['python', 'pytest'], description: 'With "start": how to run file.' },
        file: { type: 'string', description: 'With "start": the script or test file (test.py::test_name).' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
};

/** Output in order (unbuffered), no bytecode files dropped into the repository, UTF-8 whatever the locale. */
const PDB_ENV = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' };

const REFUSED: Record<string, string> = {
  interact: 'opens an interactive interpreter this tool cannot drive; use p or pp to evaluate expressions',
  debug: 'opens a nested debugger this tool cannot drive; set a breakpoint and step into the call instead',
  commands: 'waits for a list of commands this tool cannot send; use p after the breakpoint is hit instead',
  run: 'restarts the program; call pdb with command "start" instead (breakpoints are kept)',
  restart: 'restarts the program; call pdb with command "start" instead (breakpoints are kept)',
};

/** What `python -m pdb` prints when the program ends and it runs it again from the start. */
const RESTARTED = /The program finished and will be restarted|The program exited via sys\.exit\(\)/;

const START_EXAMPLES =
  'e.g. {"command": "start", "runner": "pytest", "file": "test.py"} or ' +
  '{"command": "start", "runner": "python", "file": "main.py"}';

interface Breakpoint {
  file: string;
  line: number;
  condition: string | undefined;
}

/**
 * The pdb tool as SWE-PDB designs it: a persistent session started with a runner, pdb commands passed
 * through, breakpoints on `def`/`class` lines refused with a line in the body suggested, breakpoints kept
 * across restarts and moved with the edits around them. A `.py` edit makes the running program stale, so
 * the next command restarts the session first.
 */
export class Pdb implements Tool {
  readonly spec = SPEC;
  private session: PdbSession | undefined;
  private argv: string[] | undefined;
  private readonly breakpoints = new Map<string, Breakpoint>();
  /** The `.py` file edited since the session started, when one was. */
  private staleBecause: string | undefined;
  private frameFile: string | undefined;
  /** Things to tell the agent with the next pdb observation (breakpoints an edit removed). */
  private readonly pendingNotes: string[] = [];

  async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const command = (args.command as string).trim();
    if (command === '')
      return { observation: `The command is empty. Start pdb (${START_EXAMPLES}) or send one.` };
    if (command.toLowerCase() === 'start') {
      return { observation: await this.start(ctx, args.runner as string | undefined, args.file as string) };
    }
    if (!this.session?.alive || !this.argv) {
      return { observation: `No pdb session is running. Start one first, ${START_EXAMPLES}.` };
    }
    const notes = this.pendingNotes.splice(0);
    if (this.staleBecause) {
      notes.push(await this.restart(ctx));
      if (!this.session?.alive) return { observation: notes.join('\n') };
    }
    const { run, dropped } = firstCommand(command);
    const word = commandWord(run);
    const refusal = REFUSED[word];
    if (refusal)
      return { observation: [...notes, `"${word}" is not available here: it ${refusal}.`].join('\n') };
    if (BREAK_COMMANDS.has(word)) {
      const refused = await this.checkBreakLine(ctx, run);
      if (refused) return { observation: [...notes, refused].join('\n') };
    }
    const session = this.session!;
    let reply = await session.send(run, ctx.remainingMs());
    if (reply.end === 'confirm') {
      const confirmed = await session.send('y', ctx.remainingMs());
      reply = { ...confirmed, output: `${reply.output} y\n${confirmed.output}`.trim() };
    }
    this.track(word, run, reply.output);
    notes.push(this.describeReply(reply, QUIT_COMMANDS.has(word)));
    if (dropped)
      notes.push(`Only the first command ran ("${run}"); send the rest one call at a time: "${dropped}".`);
    return { observation: notes.join('\n') };
  }

  fileEdited(edit: FileEdit): void {
    if (!edit.path.endsWith('.py')) return;
    if (this.session?.alive) this.staleBecause = edit.path;
    const region = changedRegion(edit.before ?? '', edit.after ?? '');
    const end = region.startLine + region.oldLineCount;
    const lastNew = region.startLine + region.newLineCount - 1;
    const moved = [...this.breakpoints.values()].flatMap((bp): Breakpoint[] => {
      if (bp.file !== edit.path || bp.line < region.startLine) return [bp];
      if (bp.line >= end) return [{ ...bp, line: bp.line + region.newLineCount - region.oldLineCount }];
      // On a rewritten line: it stays with the new code there, if there is any.
      if (edit.after !== null && lastNew >= region.startLine)
        return [{ ...bp, line: Math.min(bp.line, lastNew) }];
      this.pendingNotes.push(
        `The breakpoint at ${bp.file}:${bp.line} was removed with the lines your edit deleted.`,
      );
      return [];
    });
    this.breakpoints.clear();
    for (const bp of moved) this.breakpoints.set(`${bp.file}:${bp.line}`, bp);
  }

  async close(): Promise<void> {
    await this.session?.close();
    this.session = undefined;
  }

  private async start(
    ctx: ToolContext,
    runner: string | undefined,
    file: string | undefined,
  ): Promise<string> {
    if (!runner || !file) return `"start" needs both runner and file, ${START_EXAMPLES}.`;
    const target = resolvePath(ctx.repoDir, file.split('::')[0]!);
    const { kind } = await statPath(ctx, target);
    if (kind !== 'file') return `Cannot start pdb: ${target} is not a file.`;
    this.argv =
      runner === 'python'
        ? ['python3', '-m', 'pdb', file]
        : file.includes('::')
          ? ['python3', '-m', 'pytest', '-sq', file, '--trace', '--tb=short']
          : ['python3', '-m', 'pdb', '-m', 'pytest', '-sq', file];
    return this.launch(ctx);
  }

  private async restart(ctx: ToolContext): Promise<string> {
    return this.launch(
      ctx,
      `${this.staleBecause} changed since pdb started, so the session was restarted from the beginning.`,
    );
  }

  /**
   * (Re)starts the session on `this.argv`, sets the kept breakpoints again, and says how it went;
   * `restartReason` says why when this is a restart the agent did not ask for.
   */
  private async launch(ctx: ToolContext, restartReason?: string): Promise<string> {
    await this.close();
    this.staleBecause = undefined;
    this.frameFile = undefined;
    const argv = this.argv!;
    this.session = await PdbSession.start(ctx.sandbox, ctx.setup, argv, { cwd: ctx.repoDir, env: PDB_ENV });
    const reply = await this.session.read(ctx.remainingMs());
    if (reply.end !== 'prompt') {
      await this.close();
      const why =
        reply.end === 'timeout' ? 'did not reach the pdb prompt in time' : `exited (code ${reply.exitCode})`;
      return [restartReason, `pdb could not start: ${argv.join(' ')} ${why}.`, reply.output]
        .filter((s) => s !== undefined && s !== '')
        .join('\n');
    }
    this.frameFile = currentFrameFile(reply.output) ?? this.frameFile;
    const restored = await this.restoreBreakpoints(ctx);
    const headline = restartReason ?? `pdb started with: ${argv.join(' ')}`;
    return [headline, reply.output, ...restored].filter((s) => s !== '').join('\n');
  }

  private async restoreBreakpoints(ctx: ToolContext): Promise<string[]> {
    if (this.breakpoints.size === 0) return [];
    const kept: string[] = [];
    const lost: string[] = [];
    for (const [key, bp] of [...this.breakpoints]) {
      const where = `${bp.file}:${bp.line}`;
      const reply = await this.session!.send(
        `b ${where}${bp.condition ? `, ${bp.condition}` : ''}`,
        ctx.remainingMs(),
      );
      if (parseSetBreakpoints(reply.output).length > 0) kept.push(where);
      else {
        this.breakpoints.delete(key);
        lost.push(`${where} (${reply.output.replace(/^\*\*\* /, '').trim()})`);
      }
    }
    const notes = kept.length > 0 ? [`Breakpoints restored: ${kept.join(', ')}.`] : [];
    if (lost.length > 0)
      notes.push(`Breakpoints that no longer fit the code and were dropped: ${lost.join('; ')}.`);
    return notes;
  }

  /** An observation refusing a breakpoint on a definition header, or undefined to let pdb set it. */
  private async checkBreakLine(ctx: ToolContext, command: string): Promise<string | undefined> {
    const at = parseBreakAtLine(command);
    const file = at?.file !== undefined ? resolvePath(ctx.repoDir, at.file) : this.frameFile;
    if (!at || !file || (await statPath(ctx, file)).kind !== 'file') return undefined;
    const read = await readText(ctx, file);
    if (!read.ok) return undefined;
    const lines = splitLines(read.text);
    const header = definitionHeaderAt(lines, at.line);
    if (!header) return undefined;
    const body = firstBodyLine(lines, header);
    const shown = at.file ?? file;
    const target = at.file === undefined ? `${body}` : `${at.file}:${body}`;
    const suggestion = body
      ? `Set it on the first line of the body instead: "b ${target}"${header.name ? ` (or "b ${header.name}")` : ''}.`
      : `Its body is on the same line; break where it is called${header.name ? `, or use "b ${header.name}"` : ''}.`;
    return (
      `Breakpoint not set: line ${at.line} of ${shown} belongs to the header of "${header.name}" (line ` +
      `${header.defLine}), which runs once when the definition is made, not on each call. ${suggestion}`
    );
  }

  /** Keeps the breakpoint list in step with what pdb reports. */
  private track(word: string, command: string, output: string): void {
    this.frameFile = currentFrameFile(output) ?? this.frameFile;
    if (BREAK_COMMANDS.has(word) && word !== 'tbreak') {
      const condition = parseBreakAtLine(command)?.condition ?? conditionOf(command);
      for (const bp of parseSetBreakpoints(output)) {
        this.breakpoints.set(`${bp.file}:${bp.line}`, { file: bp.file, line: bp.line, condition });
      }
    } else if (CLEAR_COMMANDS.has(word)) {
      for (const bp of parseDeletedBreakpoints(output)) this.breakpoints.delete(`${bp.file}:${bp.line}`);
    }
  }

  private describeReply(reply: PdbReply, quit: boolean): string {
    const output = reply.output === '' ? '(no output)' : reply.output;
    if (reply.end === 'timeout') {
      const after = this.session?.alive
        ? 'pdb interrupted the program where it was; see where it stopped above.'
        : 'the program did not stop when interrupted, so the session was ended. Start it again.';
      return `${output}\nThe command did not return before the step deadline: ${after}`;
    }
    if (reply.end === 'exited') {
      if (quit) return `${output}\nThe pdb session ended.`.trim();
      return (
        `${output}\nThe program ended (exit code ${reply.exitCode}) and the pdb session with it. ` +
        'Start it again with command "start"; breakpoints are kept.'
      );
    }
    if (RESTARTED.test(output)) {
      return `${output}\n(The program ran to its end and pdb started it again from the top; breakpoints are kept.)`;
    }
    return output;
  }
}

/** The condition of a function breakpoint (`b name, cond`). */
function conditionOf(command: string): string | undefined {
  const comma = command.indexOf(',');
  return comma === -1 ? undefined : command.slice(comma + 1).trim() || undefined;
}
