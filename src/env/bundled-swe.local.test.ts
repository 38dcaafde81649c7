import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { materializeRepo } from '../../datasets/bundled/materialize.ts';
import type { SandboxProvider } from '../sandbox/index.ts';
import { loadTasks, type SweTask } from '../tasks/index.ts';
import { prepareSandbox } from './prepare.ts';
import { scrubGitHistory } from './scrub-git-history.ts';
import { SWEEnv } from './swe-env.ts';
import { BASE_IMAGE, localTestEnvironment, sh } from './testing/provider-sandboxes.ts';

const local = await localTestEnvironment();
const BUNDLED = fileURLToPath(new URL('../../datasets/bundled/', import.meta.url));
const all = local.skip ? [] : ((await loadTasks(join(BUNDLED, 'swe.jsonl'))).tasks as SweTask[]);
/** One task per project keeps this quick; `sandgym validate` runs them all. */
const sample = [...new Map(all.map((t) => [t.repo, t])).values()];

describe('bundled SWE-bench tasks through SWEEnv (local provider)', {
  skip: local.skip ?? false,
  timeout: 600_000,
}, () => {
  let provider: SandboxProvider;
  let hostDir: string;
  before(async () => {
    provider = await local.provider();
    hostDir = await mkdtemp(join(tmpdir(), 'sandgym-env-bundled-'));
  });
  after(async () => {
    await provider.close();
    await rm(hostDir, { recursive: true, force: true });
  });

  it('has tasks to run', () => assert.ok(sample.length >= 3, `${sample.length} projects`));

  for (const published of sample) {
    it(`${published.id}: prepared at base_commit with its tests hidden; gold resolves, no patch does not`, async () => {
      // The image as the dataset describes it: the materialized repository uploaded to /testbed of the base.
      const repo = join(hostDir, published.id);
      await materializeRepo(
        { ...published, test_patch: published.testPatch, base_commit: published.baseCommit },
        join(BUNDLED, 'projects'),
        repo,
      );
      const builder = await provider.create({ image: BASE_IMAGE });
      const image = `sandgym-test/env-bundled:${published.id.replace(/[^a-z0-9-]/g, '-')}`;
      try {
        await builder.uploadDir(repo, '/testbed');
        await builder.snapshot(image);
      } finally {
        await builder.close();
      }
      const task: SweTask = { ...published, image };
      const sandbox = await prepareSandbox(task, provider);
      const env = new SWEEnv(task, sandbox, {
        config: {
          tools: ['file_editor', 'search', 'execute_bash', 'finish'],
          step_timeout_s: 60,
          reward_timeout_s: 300,
          max_observation_chars: 10_000,
        },
        provider,
      });
      try {
        assert.equal((await sh(sandbox, 'git rev-parse HEAD')).trim(), task.baseCommit);
        assert.equal(await sh(sandbox, 'git status --porcelain'), '');
        await sandbox.writeFile('/tmp/test.patch', task.testPatch);
        await sh(sandbox, 'git apply --check /tmp/test.patch && rm /tmp/test.patch'); // the tests are not there yet
        assert.equal(
          await scrubGitHistory(sandbox, '/testbed', { timeoutMs: 60_000 }),
          'clean',
          'a one-commit repository',
        );
        const gold = await env.grade(task.patch);
        assert.deepEqual([gold.grade.status, gold.reward], ['resolved', 1], gold.log);
        const empty = await env.grade();
        assert.deepEqual([empty.grade.status, empty.reward, empty.patch], ['unresolved', 0, ''], empty.log);
      } finally {
        await env.close();
        await sandbox.close();
      }
    });
  }
});
