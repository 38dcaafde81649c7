import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../../errors.ts';
import { EngineInputError } from '../errors.ts';
import { FuturesTable } from './futures-table.ts';
import { HttpError } from './http-error.ts';

test('a future is pending until its work settles; a long poll returns as soon as it does', async () => {
  const table = new FuturesTable(60_000);
  let finish: (v: unknown) => void = () => {};
  const id = table.add('optim_step on m', new Promise((resolve) => (finish = resolve)));
  assert.equal(id, '1');
  assert.deepEqual(await table.wait(id, 5), { state: 'pending' });
  const waiting = table.wait(id, 60_000);
  finish({ metrics: { step: 1 } });
  assert.deepEqual(await waiting, { state: 'done', result: { metrics: { step: 1 } } });
  assert.deepEqual(await table.wait(table.add('x', Promise.resolve(undefined)), 0), { state: 'pending' });
});

test('failures carry their category: the request’s fault is "user", anything else "server"', async () => {
  const table = new FuturesTable(60_000);
  const user = table.add('f', Promise.reject(new EngineInputError('datum 0: bad token')));
  const config = table.add('f', Promise.reject(new ConfigError('bad')));
  const server = table.add('f', Promise.reject(new Error('worker crashed')));
  assert.deepEqual(await table.wait(user, 1000), {
    state: 'failed',
    failure: { error: 'datum 0: bad token', category: 'user' },
  });
  assert.equal(
    ((await table.wait(config, 1000)) as { failure: { category: string } }).failure.category,
    'user',
  );
  assert.deepEqual(await table.wait(server, 1000), {
    state: 'failed',
    failure: { error: 'worker crashed', category: 'server' },
  });
});

test('an id never issued is 404; a result past its time to live is 410', async () => {
  const table = new FuturesTable(10);
  const id = table.add('f', Promise.resolve(1));
  await table.wait(id, 1000);
  await sleep(30);
  await assert.rejects(
    table.wait(id, 0),
    (e) => e instanceof HttpError && e.status === 410 && /send the request again/.test(e.message),
  );
  await assert.rejects(table.wait('99', 0), (e) => e instanceof HttpError && e.status === 404);
  await assert.rejects(table.wait('abc', 0), (e) => e instanceof HttpError && e.status === 404);
});
