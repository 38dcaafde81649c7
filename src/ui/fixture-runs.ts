import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRAJECTORY_FORMAT, type Trajectory } from '../agent/types.ts';

/** A finished episode as the rollout engine stores it. */
export function episode(taskId: string, sample: number, reward: number | null, turns: number): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    sandgymVersion: '0.1.0',
    taskId,
    sample,
    policy: 'oracle',
    termination: reward === null ? 'error' : 'submitted',
    reward,
    grade: {
      status: reward === 1 ? 'resolved' : 'unresolved',
      reason: 'fixture',
      f2p: {
        passed: reward === 1 ? ['tests/test_a.py::test_fix'] : [],
        failed: reward === 1 ? [] : ['tests/test_a.py::test_fix'],
      },
      p2p: { passed: ['tests/test_a.py::test_old'], failed: [] },
    },
    patch: 'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n',
    messages: [
      { role: 'system', content: 'You fix bugs.' },
      { role: 'user', content: `Fix ${taskId}` },
      ...Array.from({ length: turns }, (_, i) => [
        {
          role: 'assistant' as const,
          content: `turn ${i}`,
          tool_calls: [
            {
              id: `c${i}`,
              type: 'function' as const,
              function: { name: 'bash', arguments: '{"command":"ls"}' },
            },
          ],
        },
        {
          role: 'tool' as const,
          // The second observation was cut as truncate-observation.ts cuts long output.
          content: i === 1 ? 'a.py\n<response clipped: 900 characters omitted>\nb.py' : 'a.py',
          tool_call_id: `c${i}`,
          name: 'bash',
        },
      ]).flat(),
    ],
    turns: Array.from({ length: turns }, () => ({
      finishReason: 'tool_calls' as const,
      rawFinishReason: 'tool_calls',
      tokens: { promptIds: [1, 2, 3], completionIds: [4, 5], completionLogprobs: [-0.5, -1.5] },
      usage: { promptTokens: 3, completionTokens: 2 },
      toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }],
      observationChars: 4,
      llmMs: 10,
      envMs: 5,
      sandboxMs: 4,
      totalMs: 16,
    })),
    timing: { startedAt: '2026-11-28T00:00:00.000Z', episodeMs: 100 * turns, prepareMs: 1, gradeMs: 7 },
  };
}

const jsonl = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

/**
 * A runs directory as sandgym leaves it: a training run in progress (metrics, a step of 70 rollouts ending
 * in a line cut short, a validation), a finished `sandgym run`, and a training run stopped a day ago.
 */
export function makeFixtureRuns(): string {
  const root = mkdtempSync(join(tmpdir(), 'sandgym-ui-'));
  // A training run in progress: metrics, one step of rollouts (70 episodes: two pages), a validation.
  const train = join(root, 'exp', 'train-a');
  mkdirSync(join(train, 'rollouts'), { recursive: true });
  mkdirSync(join(train, 'validation'), { recursive: true });
  writeFileSync(join(train, 'config.yaml'), 'trainer:\n  experiment_name: train-a\n');
  writeFileSync(
    join(train, 'metrics.jsonl'),
    jsonl([
      { step: 0, time: '2026-11-28T00:00:00Z', 'val/init_resolved_rate': 0.25 },
      { step: 1, time: '2026-11-28T00:01:00Z', 'reward/resolved_rate': 0.5, 'actor/loss': 0.1 },
      { step: 1, time: '2026-11-28T00:01:10Z', 'val/rl_resolved_rate': 0.5 },
    ]),
  );
  writeFileSync(
    join(train, 'rollouts', 'step-000001.jsonl'),
    `${jsonl(Array.from({ length: 70 }, (_, i) => episode(`task-${i % 10}`, Math.floor(i / 10), i % 3 === 0 ? 1 : i % 7 === 0 ? null : 0, 1 + (i % 5))))}{"cut short`,
  );
  writeFileSync(join(train, 'validation', 'init-0.jsonl'), jsonl([episode('task-0', 0, 1, 2)]));
  // A finished `sandgym run`, last written long ago.
  const run = join(root, 'run-oracle');
  mkdirSync(run);
  writeFileSync(join(run, 'config.yaml'), 'llm:\n  policy: oracle\n');
  writeFileSync(join(run, 'trajectories.jsonl'), jsonl([episode('t1', 0, 1, 3), episode('t2', 0, 0, 1)]));
  writeFileSync(join(run, 'summary.json'), JSON.stringify({ resolvedRate: 0.5 }));
  // A training run nobody has written to for a day, without curve.json: stopped.
  const stale = join(root, 'stale');
  mkdirSync(stale);
  writeFileSync(join(stale, 'config.yaml'), '{}\n');
  writeFileSync(join(stale, 'metrics.jsonl'), jsonl([{ step: 3, time: 'x', 'actor/loss': 1 }]));
  const dayAgo = new Date(Date.now() - 86_400_000);
  for (const f of ['config.yaml', 'metrics.jsonl']) utimesSync(join(stale, f), dayAgo, dayAgo);
  return root;
}
