import { posix } from 'node:path';
import { isFileTooLargeError, SandboxError, SandgymError } from '../../errors.ts';
import type { ExecResult } from '../../sandbox/index.ts';
import type { ToolContext } from '../types.ts';

/**
 * The step's deadline passed while a tool waited on the sandbox. The environment turns it into an
 * observation: a slow command is the agent's business, not an infrastructure fault.
 */
export class StepDeadlineError extends SandgymError {
  override name = 'StepDeadlineError';
}

/** Runs a helper command of a tool (not the agent's own command) within the step's deadline. */
export async function runHelper(ctx: ToolContext, argv: readonly string[]): Promise<ExecResult> {
  const timeoutMs = ctx.remainingMs();
  if (timeoutMs <= 0) throw new StepDeadlineError('the step deadline passed');
  const r = await ctx.sandbox.exec(argv, { timeoutMs, cwd: ctx.repoDir });
  if (r.timedOut) throw new StepDeadlineError(`"${argv[0]}" did not finish before the step deadline`);
  if (r.exitCode === 126 || r.exitCode === 127) {
    throw new SandboxError(
      ctx.sandbox.id,
      `"${argv[0]}" cannot run (exit ${r.exitCode}: ${r.stderr.trim()}); the image lacks a basic tool`,
    );
  }
  return r;
}

/** An absolute path: relative ones resolve against the task's working directory. */
export function resolvePath(repoDir: string, path: string): string {
  return posix.resolve(repoDir, path);
}

export type PathKind = 'file' | 'directory' | 'other' | 'missing';

const STAT_SCRIPT = `
if [ -d "$1" ]; then echo directory
elif [ -f "$1" ]; then echo "file $(stat -L -c %a "$1")"
elif [ -e "$1" ]; then echo other
else echo missing; fi`;

/** What is at `path`, and a regular file's permission bits (kept when the editor rewrites it). */
export async function statPath(ctx: ToolContext, path: string): Promise<{ kind: PathKind; mode: number }> {
  const r = await runHelper(ctx, ['sh', '-c', STAT_SCRIPT, 'sh', path]);
  const [kind, mode] = r.stdout.trim().split(' ');
  if (kind !== 'file' && kind !== 'directory' && kind !== 'other' && kind !== 'missing') {
    throw new SandboxError(ctx.sandbox.id, `stat of ${path} gave "${r.stdout.trim()}" (${r.stderr.trim()})`);
  }
  return { kind, mode: mode ? Number.parseInt(mode, 8) : 0o644 };
}

/**
 * The largest file the editor tools read whole. A policy can make any file (`truncate -s 20G`): reads
 * stop at this cap on the host, and the agent is told to look at parts with execute_bash.
 */
export const MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024;

/** A file's text, or why it cannot be edited as text. */
export async function readText(
  ctx: ToolContext,
  path: string,
): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  let bytes: Buffer;
  try {
    bytes = await ctx.sandbox.readFile(path, { maxBytes: MAX_TEXT_FILE_BYTES });
  } catch (e) {
    if (!isFileTooLargeError(e)) throw e;
    return { ok: false, reason: `${path} is larger than ${MAX_TEXT_FILE_BYTES} bytes` };
  }
  if (bytes.includes(0)) return { ok: false, reason: `${path} is a binary file (${bytes.length} bytes)` };
  const text = bytes.toString('utf8');
  // Editing a file that is not UTF-8 through a string would silently rewrite its other bytes.
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    return { ok: false, reason: `${path} is not valid UTF-8 text` };
  }
  return { ok: true, text };
}
