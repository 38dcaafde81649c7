import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects } from 'hyparquet';
import { exportVerlBatch } from './export-verl.ts';

const samples = [
  {
    taskId: 'task-a',
    sample: 0,
    promptIds: [5, 6, 7],
    responseIds: [8, 9, 1, 2, 10],
    responseMask: [1, 1, 0, 0, 1],
    logprobs: [-0.5, -0.25, 0, 0, -1],
    advantages: [0.75, 0.75, 0, 0, 0.75],
    reward: 1,
  },
  {
    taskId: 'task-a',
    sample: 1,
    promptIds: [5, 6],
    responseIds: [11],
    responseMask: [1],
    logprobs: [-2],
    advantages: [-0.75],
    reward: 0,
  },
];
const options = { maxPromptLength: 4, maxResponseLength: 6, padTokenId: 0 };

describe('exportVerlBatch', () => {
  it('writes verl tensor columns that an independent Parquet reader (DuckDB) reads as integer/float lists', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sg-verl-')), 'batch.parquet');
    writeFileSync(path, Buffer.from(exportVerlBatch(samples, options)));
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const types = (
      await db.runAndReadAll(`describe select * from read_parquet('${path}')`)
    ).getRowObjectsJson();
    const typeOf = Object.fromEntries(types.map((r) => [r.column_name as string, r.column_type as string]));
    assert.equal(typeOf.input_ids, 'INTEGER[]');
    assert.equal(typeOf.advantages, 'FLOAT[]');
    assert.equal(typeOf.uid, 'VARCHAR');
    const rows = (
      await db.runAndReadAll(`select * from read_parquet('${path}') order by sample`)
    ).getRowObjectsJson();
    assert.equal(rows.length, 2);
    const r0 = rows[0]!;
    // Left-padded prompt, right-padded response, attention over real tokens, positions from the mask.
    assert.deepEqual(r0.prompts, [0, 5, 6, 7]);
    assert.deepEqual(r0.responses, [8, 9, 1, 2, 10, 0]);
    assert.deepEqual(r0.input_ids, [0, 5, 6, 7, 8, 9, 1, 2, 10, 0]);
    assert.deepEqual(r0.attention_mask, [0, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
    assert.deepEqual(r0.position_ids, [0, 0, 1, 2, 3, 4, 5, 6, 7, 7]);
    assert.deepEqual(r0.response_mask, [1, 1, 0, 0, 1, 0]);
    assert.deepEqual(r0.token_level_scores, [0, 0, 0, 0, 1, 0]);
    assert.deepEqual(r0.advantages, [0.75, 0.75, 0, 0, 0.75, 0]);
    assert.deepEqual(r0.rollout_log_probs, [-0.5, -0.25, 0, 0, -1, 0]);
    assert.equal(r0.uid, 'task-a');
    assert.equal(rows[1]!.reward, 0);
  });

  it('reads back with hyparquet too', async () => {
    const buf = exportVerlBatch(samples, options);
    const rows = await parquetReadObjects({ file: buf });
    assert.deepEqual(rows[1]!.responses, [11, 0, 0, 0, 0, 0]);
    assert.deepEqual(rows[1]!.advantages, [-0.75, 0, 0, 0, 0, 0]);
  });
});

describe('trajectoriesToParquet', () => {
  it('writes one row per trajectory that DuckDB reads', async () => {
    const { trajectoriesToParquet } = await import('./trajectories-parquet.ts');
    const t = {
      format: 'sandgym.trajectory/1' as const,
      sandgymVersion: '0',
      taskId: 'a',
      sample: 2,
      policy: 'oracle',
      termination: 'submitted' as const,
      reward: null,
      patch: 'diff',
      messages: [{ role: 'user' as const, content: 'hi' }],
      turns: [],
      timing: { startedAt: '', episodeMs: 5, prepareMs: 0, gradeMs: 0 },
    };
    const path = join(mkdtempSync(join(tmpdir(), 'sg-traj-')), 't.parquet');
    writeFileSync(path, Buffer.from(trajectoriesToParquet([t, { ...t, sample: 3, reward: 1 }])));
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const rows = (
      await db.runAndReadAll(`select task_id, sample, reward, messages from read_parquet('${path}')`)
    ).getRowObjectsJson();
    assert.deepEqual(
      rows.map((r) => [r.task_id, r.sample, r.reward]),
      [
        ['a', 2, null],
        ['a', 3, 1],
      ],
    );
    assert.deepEqual(JSON.parse(String(rows[0]!.messages)), t.messages);
  });
});
