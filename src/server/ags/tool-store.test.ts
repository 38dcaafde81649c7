import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolStore } from './tool-store.ts';

test('tools outlive the server: a reopened store has them, a removed one is gone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-tools-'));
  try {
    const path = join(dir, 'serve', 'ags-tools.json');
    const store = await ToolStore.open(path);
    const tool = {
      ToolName: 'a',
      ToolType: 'custom',
      Status: 'ACTIVE' as const,
      Description: '',
      DefaultTimeoutSeconds: 300,
      NetworkConfiguration: { NetworkMode: 'SANDBOX' },
      Tags: [],
      CreateTime: '',
      UpdateTime: '',
      CustomConfiguration: { Image: 'sandgym/a:latest' },
      ClientToken: 't',
    };
    const a = await store.add(tool);
    const b = await store.add({ ...tool, ToolName: 'b', ClientToken: 'u' });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const reopened = await ToolStore.open(path);
    assert.deepEqual(reopened.get(a.ToolId), a);
    assert.equal(reopened.byClientToken('u')?.ToolId, b.ToolId);
    await reopened.remove(a.ToolId);
    assert.deepEqual(
      (await ToolStore.open(path)).all().map((t) => t.ToolName),
      ['b'],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
