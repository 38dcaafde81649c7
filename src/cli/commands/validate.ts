import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../../config/index.ts';
import { gradePatch } from '../../env/index.ts';
import type { Grade } from '../../harness/index.ts';
import { Semaphore } from '../../rollout/index.ts';
import type { SandboxProvider } from '../../sandbox/index.ts';
import type { Task } from '../../tasks/index.ts';
import { createProgress } from '../progress.ts';
import { providerFor } from '../provider.ts';
import { ensureTaskImages, loadDatasets } from './datasets.ts';
import { gcProviders } from './gc.ts';

export interface TaskValidation {
  taskId: string;
  /** The gold patch resolves and the empty patch does not. */
  ok: boolean;
  gold: Pick<Grade, 'status' | 'reason'>;
  empty: Pick<Grade, 'status' | 'reason'>;
  ms: number;
}

/**
 * Checks that a dataset grades as it claims: for every task the gold patch must resolve and the empty patch
 * must not — each applied to a fresh sandbox, as the official graders do.
 */
export async function validateTasks(
  tasks: readonly Task[],
  provider: SandboxProvider,
  options: { workers: number; timeoutMs: number; onResult?: (v: TaskValidation) => void },
): Promise<TaskValidation[]> {
  const workers = new Semaphore(options.workers);
  return Promise.all(
    tasks.map((task) =>
      workers.use(async () => {
        const t0 = performance.now();
        const grade = async (patch: string) => {
          const { grade } = await gradePatch(task, patch, { provider, timeoutMs: options.timeoutMs });
          return { status: grade.status, reason: grade.reason };
        };
        const [gold, empty] = await Promise.all([grade(task.patch), grade('')]);
        const v: TaskValidation = {
          taskId: task.id,
          ok: gold.status === 'resolved' && empty.status === 'unresolved',
          gold,
          empty,
          ms: performance.now() - t0,
        };
        options.onResult?.(v);
        return v;
      }),
    ),
  );
}

export function formatValidationTable(results: readonly TaskValidation[]): string {
  const width = Math.max(4, ...results.map((r) => r.taskId.length));
  const rows = results.map(
    (r) =>
      `${r.taskId.padEnd(width)}  ${(r.ok ? 'ok' : 'FAIL').padEnd(4)}  ${r.gold.status.padEnd(10)}  ${r.empty.status.padEnd(10)}  ` +
      `${(r.ms / 1000).toFixed(1).padStart(6)}${r.ok ? '' : `  gold: ${r.gold.reason}; empty: ${r.empty.reason}`}`,
  );
  return [`${'task'.padEnd(width)}  ok?   gold        empty        secs`, ...rows].join('\n');
}

interface ValidateFlags {
  provider: string;
  workers: string;
  timeout: string;
  report?: string;
  skipInvalid?: boolean;
  limit?: string;
}

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check a dataset: every gold patch must resolve its task and the empty patch must not.')
    .argument('<datasets...>', 'files, dirs, bundled:swe, bundled:debug, hf:<org>/<name>[@split]')
    .option('--provider <name>', 'sandbox provider: local, docker, e2b', 'local')
    .option('--workers <n>', 'tasks validated at once', '2')
    .option('--timeout <s>', 'grading budget of each patch, seconds', '600')
    .option('--report <file>', 'write the results as JSON here')
    .option('--limit <n>', 'only the first n tasks')
    .option('--skip-invalid', 'skip dataset rows that fail the schema (reported) instead of stopping')
    .action(async (datasets: string[], f: ValidateFlags) => {
      const config = loadConfig([], [`sandbox.provider=${f.provider}`]);
      await gcProviders([config.sandbox.provider], {}, config);
      let tasks = await loadDatasets(datasets, { skipInvalid: f.skipInvalid ?? false });
      if (f.limit) tasks = tasks.slice(0, Number(f.limit));
      const provider = await providerFor(config);
      try {
        await ensureTaskImages(tasks, provider);
        const progress = createProgress('validating', tasks.length);
        let failed = 0;
        const t0 = performance.now();
        const results = await validateTasks(tasks, provider, {
          workers: Number(f.workers),
          timeoutMs: Number(f.timeout) * 1000,
          onResult: (v) => {
            if (!v.ok) failed++;
            progress.tick({ failed });
          },
        });
        progress.stop();
        const minutes = (performance.now() - t0) / 60_000;
        process.stdout.write(`${formatValidationTable(results)}\n`);
        const summary = {
          provider: provider.name,
          tasks: results.length,
          ok: results.length - failed,
          gold_resolved: results.filter((r) => r.gold.status === 'resolved').length,
          empty_resolved: results.filter((r) => r.empty.status === 'resolved').length,
          tasks_per_min: results.length / minutes,
        };
        process.stdout.write(
          `${summary.ok}/${summary.tasks} tasks valid on ${summary.provider} ` +
            `(${summary.tasks_per_min.toFixed(1)} tasks/min)\n`,
        );
        if (f.report) writeFileSync(f.report, `${JSON.stringify({ summary, results }, null, 2)}\n`);
        if (failed > 0) process.exitCode = 1;
      } finally {
        await provider.close();
      }
    });
}
