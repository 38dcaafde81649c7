import { posix } from 'node:path';
import { DatasetError, SandboxError } from '../errors.ts';
import type { CreateSandboxOptions, Sandbox, SandboxProvider } from '../sandbox/index.ts';
import type { DebugTask, SweTask, Task } from '../tasks/index.ts';
import { diffFiles } from '../tasks/index.ts';
import { scrubGitHistory } from './scrub-git-history.ts';

export interface PrepareOptions {
  /**
   * `episode` (default): the agent's sandbox — grading tests hidden, future git history scrubbed.
   * `grading`: a clean sandbox for the harness — the task as published (R2E-Gym's hidden tests in place),
   * nothing scrubbed; a SWE-bench task's test files are at base_commit, ready for the test patch.
   */
  purpose?: 'episode' | 'grading';
  /** Scrub future git history (`env.scrub_git_history`); default true. */
  scrubGitHistory?: boolean;
  /** Passed on to the provider (labels, TTL, limits, network); image and workdir come from the task. */
  create?: Omit<CreateSandboxOptions, 'image' | 'workdir'>;
  /** Deadline of each preparation command; a big repository's repack needs the most. Default 300 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Files the agent must not see in an R2E-Gym image: its hidden tests and the script that runs them. */
export const R2E_HIDDEN_PATHS = ['/r2e_tests', 'r2e_tests', 'run_tests.sh', '/root/run_tests.sh'] as const;

/** Build noise that must never enter the agent's patch, kept out through `.git/info/exclude`. */
const EXCLUDED_NOISE = ['__pycache__/', '*.pyc', '.pytest_cache/'];
const EXCLUDE_SCRIPT =
  'd="$(git rev-parse --git-dir)/info" && mkdir -p "$d" && printf "%s\\n" "$@" >> "$d/exclude"';

/** A fixed identity and date, so a baseline commit is the same for the same files. */
const GIT_IDENTITY = [
  '-c',
  'user.name=sandgym',
  '-c',
  'user.email=sandgym@localhost',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'core.hooksPath=/dev/null',
];
const GIT_DATE_ENV = { GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z' };

/**
 * A sandbox ready for an episode of `task`, apart from the episode itself so that a rollout engine can
 * prepare a task once and `fork(n)` it. The repository is at `task.test.workdir` (`/testbed`) with:
 * - SWE-bench tasks: the task image at base_commit; files the test patch touches reset to base_commit and
 *   files it adds removed (as SWE-bench's eval script does before applying it);
 * - R2E-Gym tasks: the task image with its hidden tests and `run_tests.sh` removed;
 * - debug tasks: the task's files written into a fresh `git init` on the task image (`sandgym/base`);
 * then, if the working tree differs from HEAD, a baseline commit of it (so the agent's diff holds only the
 * agent's changes), and the git history scrubbed down to HEAD. The agent's diff is taken against HEAD
 * as it is when the episode starts.
 *
 * The sandbox is closed again if preparing fails.
 */
export async function prepareSandbox(
  task: Task,
  provider: SandboxProvider,
  options: PrepareOptions = {},
): Promise<Sandbox> {
  const workdir = task.test.workdir;
  const sandbox = await provider.create({
    ...options.create,
    ...signalOf(options),
    image: task.image,
    workdir,
  });
  try {
    const run = commandRunner(sandbox, workdir, options);
    if (task.kind === 'debug') await writeDebugRepo(sandbox, task, run);
    // The harness applies the test patch itself; a tree that already holds its files would refuse it.
    if (task.kind === 'swe') await hideSweTests(task, run);
    if (options.purpose === 'grading') return sandbox;
    await run(['sh', '-c', EXCLUDE_SCRIPT, 'sh', ...EXCLUDED_NOISE], 'keeping build noise out of git');
    if (task.kind === 'r2e') await hideR2eTests(run);
    await commitBaseline(run);
    if (options.scrubGitHistory ?? true) {
      await scrubGitHistory(sandbox, workdir, {
        timeoutMs: options.timeoutMs ?? 300_000,
        ...signalOf(options),
      });
    }
    return sandbox;
  } catch (e) {
    await sandbox.close();
    throw e;
  }
}

type Run = (argv: readonly string[], what: string, env?: Record<string, string>) => Promise<string>;

/** Runs a preparation command; its failure is the image's or the task's, never the agent's. */
function commandRunner(sandbox: Sandbox, workdir: string, options: PrepareOptions): Run {
  return async (argv, what, env) => {
    const r = await sandbox.exec(argv, {
      cwd: workdir,
      timeoutMs: options.timeoutMs ?? 300_000,
      ...(env ? { env } : {}),
      ...signalOf(options),
    });
    if (r.exitCode !== 0) {
      const why = r.timedOut ? 'timed out' : `exit ${r.exitCode}: ${(r.stderr || r.stdout).trim()}`;
      throw new SandboxError(
        sandbox.id,
        `preparing ${workdir} in image "${sandbox.image}": ${what} failed (${why})`,
      );
    }
    return r.stdout;
  };
}

function signalOf(options: PrepareOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

async function writeDebugRepo(sandbox: Sandbox, task: DebugTask, run: Run): Promise<void> {
  const workdir = task.test.workdir;
  for (const file of task.files) await sandbox.writeFile(posix.join(workdir, file.path), file.content);
  await run(['git', '-c', 'init.defaultBranch=main', 'init', '-q', '--template='], 'git init');
  await run(['git', 'add', '-A'], 'git add');
  await run(
    ['git', ...GIT_IDENTITY, 'commit', '-q', '--no-verify', '-m', `${task.id}: the task as given`],
    'the first commit',
    GIT_DATE_ENV,
  );
}

/** SWE-bench's eval script resets these files to base_commit before applying the test patch; so do we. */
async function hideSweTests(task: SweTask, run: Run): Promise<void> {
  const head = (await run(['git', 'rev-parse', 'HEAD'], 'reading HEAD')).trim();
  if (head !== task.baseCommit) {
    throw new DatasetError(
      `task ${task.id}: the repository in image "${task.image}" is at ${head}, not at base_commit ` +
        `${task.baseCommit}; rebuild the image for this task`,
    );
  }
  const files = diffFiles(task.testPatch);
  const existing = files.flatMap((f) => (f.oldPath === null ? [] : [f.oldPath]));
  const added = files.flatMap((f) => (f.oldPath === null && f.newPath !== null ? [f.newPath] : []));
  if (existing.length > 0) {
    await run(
      ['git', 'checkout', '-q', task.baseCommit, '--', ...existing],
      'resetting the test files to base_commit',
    );
  }
  if (added.length > 0) await run(['rm', '-rf', '--', ...added], 'removing the files the test patch adds');
}

async function hideR2eTests(run: Run): Promise<void> {
  await run(['rm', '-rf', '--', ...R2E_HIDDEN_PATHS], "removing R2E-Gym's hidden tests");
}

/** Commits the working tree when it differs from HEAD, so HEAD is exactly what the episode starts from. */
async function commitBaseline(run: Run): Promise<void> {
  const status = await run(['git', 'status', '--porcelain', '--untracked-files=all'], 'git status');
  if (status.trim() === '') return;
  await run(['git', 'add', '-A'], 'git add');
  await run(
    ['git', ...GIT_IDENTITY, 'commit', '-q', '--no-verify', '-m', 'sandgym: the task as the agent starts it'],
    'the baseline commit',
    GIT_DATE_ENV,
  );
}
