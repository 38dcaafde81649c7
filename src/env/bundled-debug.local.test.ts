import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SandboxProvider } from '../sandbox/index.ts';
import { type DebugTask, loadTasks } from '../tasks/index.ts';
import { prepareSandbox } from './prepare.ts';
import { SWEEnv } from './swe-env.ts';
import { localTestEnvironment } from './testing/provider-sandboxes.ts';
import { definitionHeaderAt, firstBodyLine } from './tools/pdb-commands.ts';
import { splitLines } from './tools/text-edits.ts';

const local = await localTestEnvironment();
const DEBUG_JSONL = fileURLToPath(new URL('../../datasets/bundled/debug.jsonl', import.meta.url));
const tasks = local.skip ? [] : ((await loadTasks(DEBUG_JSONL)).tasks as DebugTask[]);

/** The first top-level function of the program: its def line and the first line of its body. */
function firstFunction(source: string): { defLine: number; bodyLine: number } {
  const lines = splitLines(source);
  const def = lines.findIndex((l) => l.startsWith('def '));
  const header = definitionHeaderAt(lines, def + 1)!;
  return { defLine: header.defLine, bodyLine: firstBodyLine(lines, header)! };
}

describe('the bundled debugging tasks (local provider)', {
  skip: local.skip ?? false,
  timeout: 600_000,
}, () => {
  let provider: SandboxProvider;
  before(async () => {
    provider = await local.provider();
  });
  after(() => provider.close());

  it('has tasks to run', () => assert.ok(tasks.length >= 10, `${tasks.length} tasks`));

  for (const task of tasks) {
    it(`${task.id}: a pdb session stops in the code under test; the gold patch resolves, no patch does not`, async () => {
      const sandbox = await prepareSandbox(task, provider);
      const env = new SWEEnv(task, sandbox, {
        config: {
          tools: ['file_editor', 'search', 'pdb', 'finish'],
          step_timeout_s: 60,
          reward_timeout_s: 120,
          max_observation_chars: 10_000,
        },
        provider,
      });
      try {
        const pdb = async (args: Record<string, unknown>) =>
          (await env.step({ name: 'pdb', arguments: args })).observation;
        const fn = firstFunction(task.files.find((f) => f.path === 'solution.py')!.content);
        assert.match(
          await pdb({ command: 'start', runner: 'pytest', file: 'test.py' }),
          /^pdb started with: /,
        );
        assert.match(
          await pdb({ command: `b solution.py:${fn.defLine}` }),
          new RegExp(`"b solution.py:${fn.bodyLine}"`),
        );
        assert.match(
          await pdb({ command: `b solution.py:${fn.bodyLine}` }),
          /^Breakpoint 1 at \/testbed\/solution\.py:/,
        );
        assert.match(
          await pdb({ command: 'c' }),
          new RegExp(`> /testbed/solution\\.py\\(${fn.bodyLine}\\)\\w+\\(\\)`),
        );
        assert.match(await pdb({ command: 'p sorted(locals())' }), /^\[.*\]$/);
        const gold = await env.grade(task.patch);
        assert.deepEqual([gold.grade.status, gold.reward], ['resolved', 1], gold.log);
        const empty = await env.grade('');
        assert.deepEqual([empty.grade.status, empty.reward], ['unresolved', 0], empty.log);
      } finally {
        await env.close();
        await sandbox.close();
      }
    });
  }
});
