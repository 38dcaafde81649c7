import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from './http-error.ts';
import { SessionRegistry } from './session-registry.ts';

test('a session without heartbeats expires and its models are unloaded; a live one stays', (t) => {
  // Mocked clock and timers: the sweep sees exactly the silence the test makes, however loaded the host.
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  const expired: string[][] = [];
  const sessions = new SessionRegistry(60, (ids) => expired.push(ids));
  t.after(() => sessions.close());
  const silent = sessions.create();
  const alive = sessions.create();
  sessions.addModel(silent, 'model_1');
  sessions.addModel(alive, 'model_2');
  for (let i = 0; i < 8; i++) {
    t.mock.timers.tick(20);
    sessions.touch(alive);
  }
  assert.deepEqual(expired, [['model_1']]);
  assert.throws(
    () => sessions.touch(silent),
    (e) => e instanceof HttpError && e.status === 404 && /expired after 60 ms/.test(e.message),
  );
});
