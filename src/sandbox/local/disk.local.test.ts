import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { localTestSkipReason } from './test-support.ts';

const skip = await localTestSkipReason();
const MiB = 1024 * 1024;
/** statfs f_type of ext2/3/4 and of tmpfs. */
const EXT4_MAGIC = 0xef53;

/** Files backing the host's loop devices. */
function loopBackingFiles(): string[] {
  return readdirSync('/sys/block')
    .filter((d) => d.startsWith('loop'))
    .flatMap((d) => {
      try {
        return [readFileSync(`/sys/block/${d}/loop/backing_file`, 'utf8').trim()];
      } catch {
        return [];
      }
    });
}

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('local sandbox disk', { skip: skip ?? false, timeout: 180_000 }, () => {
  let provider: LocalProvider;
  before(async () => {
    provider = await createLocal();
  });
  after(() => provider.close());

  it('keeps writes in a sparse ext4 image on the host disk, not in memory; ENOSPC at the limit; image and loop device go on close', async () => {
    const s = await provider.create({ image: 'sandgym/base', limits: { diskBytes: 64 * MiB } });
    const image = join(s.dir, 'disk.ext4');
    const upper = `/proc/${s.holder.pid}/root${s.dir}/upper`;
    assert.equal(statfsSync(upper).type, EXT4_MAGIC, 'the writable layer is on ext4, not tmpfs');
    assert.equal(statSync(image).size, 64 * MiB);
    assert.ok(statSync(image).blocks * 512 < 8 * MiB, 'a fresh image is sparse');
    assert.ok(loopBackingFiles().includes(image), 'a loop device backs the image');

    const w = await s.exec('dd if=/dev/urandom of=/data bs=1M count=24 conv=fsync 2>&1');
    assert.equal(w.exitCode, 0, w.stdout);
    assert.ok(statSync(image).blocks * 512 >= 24 * MiB, 'the written data takes blocks of the image file');

    const fill = await s.exec('dd if=/dev/zero of=/fill bs=1M count=200', { timeoutMs: 60_000 });
    assert.notEqual(fill.exitCode, 0);
    assert.match(fill.stderr, /No space left/);
    assert.equal((await s.exec('rm /fill && echo ok > /tmp/after && cat /tmp/after')).stdout, 'ok\n');
    assert.equal(statSync(image).size, 64 * MiB, 'the image never grows past the limit');

    await s.close();
    await provider.released();
    assert.equal(existsSync(image), false, 'the image is removed with the sandbox directory');
    assert.ok(
      await waitFor(() => !loopBackingFiles().some((f) => f.startsWith(s.dir))),
      'the loop device detaches once the sandbox is gone',
    );
  });

  it('gives every one of 128 sandboxes started at once a disk (they take the free loop device in turn)', async () => {
    // Without the turn-taking, all of them raced for the same free device and some lost 64 times in a row.
    const started = await Promise.allSettled(
      Array.from({ length: 128 }, () => provider.create({ image: 'sandgym/base' })),
    );
    const failures = started.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
    await provider.released();
    assert.deepEqual(failures.slice(0, 3), []);
  });

  it('keeps at most 16 disk templates, however many sizes callers ask for', async () => {
    for (let k = 0; k < 18; k++) {
      const s = await provider.create({ image: 'sandgym/base', limits: { diskBytes: (40 + k) * MiB } });
      await s.close();
    }
    const templates = join(dirname(provider.sandboxesDir), 'disk-templates');
    // One more than the cap: another test's start may add its template between a prune and a count.
    assert.ok(readdirSync(templates).length <= 17, readdirSync(templates).join(' '));
  });
});
