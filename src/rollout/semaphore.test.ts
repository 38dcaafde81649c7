import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('never lets more than the limit in, and serves everyone', async () => {
    const s = new Semaphore(3);
    let inside = 0;
    let most = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.use(async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, (i * 7) % 5));
          inside--;
          done.push(i);
        }),
      ),
    );
    assert.equal(most, 3);
    assert.equal(done.length, 20);
  });

  it('releases the slot when the holder throws', async () => {
    const s = new Semaphore(1);
    await assert.rejects(s.use(async () => Promise.reject(new Error('x'))));
    assert.equal(await s.use(async () => 7), 7);
  });
});
