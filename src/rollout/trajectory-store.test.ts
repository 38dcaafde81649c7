import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TRAJECTORY_FORMAT, type Trajectory } from '../agent/types.ts';
import { isSandgymError } from '../errors.ts';
import { TrajectoryStore, trajectoryKey } from './trajectory-store.ts';

function traj(taskId: string, sample: number): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    sandgymVersion: '0.0.0',
    taskId,
    sample,
    policy: 'oracle',
    termination: 'submitted',
    reward: 1,
    patch: '',
    messages: [{ role: 'user', content: 'ünïcode ✓' }],
    turns: [],
    timing: { startedAt: new Date(0).toISOString(), episodeMs: 1, prepareMs: 0, gradeMs: 0 },
  };
}

describe('TrajectoryStore', () => {
  it('gives the trajectories of a task list in task then sample order, whatever order they finished in', () => {
    const s = TrajectoryStore.open(join(mkdtempSync(join(tmpdir(), 'sg-store-')), 't.jsonl'));
    for (const [id, n] of [
      ['b', 1],
      ['a', 2],
      ['c', 0],
      ['b', 0],
      ['a', 0],
    ] as const)
      s.append(traj(id, n));
    assert.deepEqual(s.forTasks([{ id: 'a' }, { id: 'b' }, { id: 'x' }], 2).map(trajectoryKey), [
      'a#0',
      'b#0',
      'b#1',
    ]);
    s.close();
  });

  it('appends, reopens and knows what is done', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sg-store-')), 'sub', 'trajectories.jsonl');
    const s = TrajectoryStore.open(path);
    s.append(traj('a', 0));
    s.append(traj('a', 1));
    s.close();
    const r = TrajectoryStore.open(path);
    assert.equal(r.size, 2);
    assert.ok(r.has('a#1'));
    assert.ok(!r.has('b#0'));
    assert.equal(r.all()[0]!.messages[0]!.content, 'ünïcode ✓');
    r.close();
  });

  it('drops a line cut short by a kill and keeps the file valid JSONL', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sg-store-')), 't.jsonl');
    const s = TrajectoryStore.open(path);
    s.append(traj('a', 0));
    s.close();
    appendFileSync(path, JSON.stringify(traj('b', 0)).slice(0, 40));
    const r = TrajectoryStore.open(path);
    assert.equal(r.size, 1);
    r.append(traj('b', 0));
    r.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => trajectoryKey(JSON.parse(l) as Trajectory)),
      ['a#0', 'b#0'],
    );
  });

  it('refuses a file damaged in the middle, naming the line', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sg-store-')), 't.jsonl');
    writeFileSync(path, `${JSON.stringify(traj('a', 0))}\n{broken\n${JSON.stringify(traj('a', 1))}\n`);
    assert.throws(
      () => TrajectoryStore.open(path),
      (e: unknown) => isSandgymError(e) && /t\.jsonl:2/.test(e.message),
    );
  });
});
