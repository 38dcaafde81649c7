import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isSandboxError } from '../../errors.ts';
import { prepareHelper } from './helper-binary.ts';

describe('sandgym-helper build', () => {
  it('fails with what to install when the host cannot compile it (no fallback to a weaker start path)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sg-helper-'));
    try {
      await assert.rejects(prepareHelper(home, '/nonexistent/cc'), (e: unknown) => {
        assert.ok(isSandboxError(e));
        assert.match((e as Error).message, /could not compile its helper/);
        assert.match((e as Error).message, /apt-get install gcc libc6-dev libseccomp-dev/);
        return true;
      });
      // Nothing half-built is left to be mistaken for a helper.
      assert.deepEqual(
        (await readdir(join(home, 'bin')).catch(() => [])).filter((f) => f.startsWith('sandgym-helper')),
        [],
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
