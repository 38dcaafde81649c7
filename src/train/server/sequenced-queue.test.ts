import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError } from './http-error.ts';
import { SequencedQueue } from './sequenced-queue.ts';

function recorder() {
  const ran: string[] = [];
  const job =
    (name: string, ms = 0) =>
    async () => {
      if (ms) await sleep(ms);
      ran.push(name);
      return name;
    };
  return { ran, job };
}

test('training requests run in seq_id order whatever order they arrive in, one at a time', async () => {
  const queue = new SequencedQueue('model m', 10_000);
  const { ran, job } = recorder();
  const results = [queue.run(3, job('c')), queue.run(2, job('b', 5)), queue.run(1, job('a', 5))];
  assert.deepEqual(await Promise.all(results), ['c', 'b', 'a']);
  assert.deepEqual(ran, ['a', 'b', 'c']);
});

test('jobs without a seq_id run in arrival order between released ones', async () => {
  const queue = new SequencedQueue('model m', 10_000);
  const { ran, job } = recorder();
  const all = [
    queue.run(undefined, job('sample-1', 5)),
    queue.run(2, job('two')),
    queue.run(undefined, job('sample-2')),
    queue.run(1, job('one')),
  ];
  await Promise.all(all);
  assert.deepEqual(ran, ['sample-1', 'sample-2', 'one', 'two']);
});

test('a reused seq_id is refused at once; a rejected one gives its turn away', async () => {
  const queue = new SequencedQueue('model m', 10_000);
  const { ran, job } = recorder();
  await queue.run(1, job('one'));
  assert.throws(
    () => queue.run(1, job('again')),
    (e) => e instanceof HttpError && e.status === 409 && /seq_id 1 was already used/.test(e.message),
  );
  const three = queue.run(3, job('three'));
  queue.skip(2);
  await three;
  assert.deepEqual(ran, ['one', 'three']);
  assert.throws(() => queue.run(2, job('late')), /seq_id 2 was already used/);
});

test('a seq_id that never comes holds the queue only for the gap timeout', async (t) => {
  const queue = new SequencedQueue('model m', 20);
  const { ran, job } = recorder();
  // The gap timer does not hold the process open (the server's socket would): this does.
  const keepAlive = setTimeout(() => {}, 5_000);
  t.after(() => clearTimeout(keepAlive));
  await queue.run(3, job('three'));
  assert.deepEqual(ran, ['three']);
  assert.throws(() => queue.run(1, job('straggler')), /409|already used/);
  await queue.run(4, job('four'));
  await queue.drained();
  assert.deepEqual(ran, ['three', 'four']);
});

test('a failed job does not stop the ones after it', async () => {
  const queue = new SequencedQueue('model m', 10_000);
  const failing = queue.run(1, async () => {
    throw new Error('boom');
  });
  const next = queue.run(2, async () => 'fine');
  await assert.rejects(failing, /boom/);
  assert.equal(await next, 'fine');
});
