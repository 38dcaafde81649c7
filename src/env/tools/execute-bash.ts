import type { ToolSpec } from '../../llm/types.ts';
import type { ExecResult } from '../../sandbox/index.ts';
import type { Tool, ToolContext, ToolResult } from '../types.ts';
import { blockedBy, R2E_GYM_BLOCKLIST } from './command-blocklist.ts';
import { StepDeadlineError } from './sandbox-files.ts';
import { shellArgv } from './shell.ts';

function spec(blocklist: readonly string[]): ToolSpec {
  const refused = blocklist.length > 0 ? ` These commands are refused: ${blocklist.join(', ')}.` : '';
  return {
    type: 'function',
    function: {
      name: 'execute_bash',
      description: [
        'Runs a bash command in the repository directory and returns its exit code, stdout and stderr.',
        'Each call is a fresh shell: cd, variables and background jobs do not carry over to the next call.',
        'The command is killed at the step deadline; long output is cut in the middle. Interactive programs',
        `get no input.${refused}`,
      ].join('\n'),
      parameters: {
        type: 'object',
        properties: {
          cmd: { type: 'string', description: 'The command, e.g. "python -m pytest -q tests/test_x.py".' },
        },
        required: ['cmd'],
        additionalProperties: false,
      },
    },
  };
}

/** Pagers would wait for a terminal that is not there. */
const COMMAND_ENV = { PAGER: 'cat', GIT_PAGER: 'cat', MANPAGER: 'cat' };

export interface ExecuteBashOptions {
  /** Commands refused (leading words); default R2E-Gym's list. */
  blockedCommands?: readonly string[];
}

/** R2E-Gym's `execute_bash`: one command, a deadline, labelled and capped output, the exit code. */
export class ExecuteBash implements Tool {
  readonly spec: ToolSpec;
  private readonly blocklist: readonly string[];

  constructor(options: ExecuteBashOptions = {}) {
    this.blocklist = options.blockedCommands ?? R2E_GYM_BLOCKLIST;
    this.spec = spec(this.blocklist);
  }

  async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const cmd = args.cmd as string;
    if (cmd.trim() === '') return { observation: 'cmd is empty; give a command to run.' };
    const blocked = blockedBy(cmd, this.blocklist);
    if (blocked) {
      return {
        observation:
          `The command was not run: "${blocked}" commands are not allowed in this environment ` +
          `(refused: ${this.blocklist.join(', ')}). Use another way or another tool.`,
      };
    }
    const timeoutMs = ctx.remainingMs();
    if (timeoutMs <= 0) throw new StepDeadlineError('the step deadline passed before the command started');
    const r = await ctx.sandbox.exec(shellArgv(ctx.setup, cmd), {
      cwd: ctx.repoDir,
      env: COMMAND_ENV,
      stdin: '',
      timeoutMs,
    });
    return { observation: formatExecResult(r, timeoutMs) };
  }
}

export function formatExecResult(r: ExecResult, timeoutMs: number): string {
  const head = r.timedOut
    ? `The command did not finish within ${Math.round(timeoutMs / 1000)} s and was killed (exit code ${r.exitCode}). ` +
      'Its output until then:'
    : `Exit code: ${r.exitCode}`;
  const cut = r.truncated ? '\n(The output was too long; its middle was cut.)' : '';
  return `${head}\n[STDOUT]\n${r.stdout.trimEnd()}\n[STDERR]\n${r.stderr.trimEnd()}${cut}`;
}
