import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hashDirectory } from './hash-dir.ts';
import { canonicalJson, recipeKey } from './recipe-key.ts';

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'sg-hash-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe('hashDirectory', () => {
  it('depends on content, names, modes and symlinks, not on creation order', async () => {
    const a = await tree({ 'x/1.txt': 'one', '2.txt': 'two' });
    const b = await tree({ '2.txt': 'two', 'x/1.txt': 'one' });
    try {
      assert.equal(await hashDirectory(a), await hashDirectory(b));
      await writeFile(join(b, '2.txt'), 'TWO');
      const changed = await hashDirectory(b);
      assert.notEqual(await hashDirectory(a), changed);
      await chmod(join(b, '2.txt'), 0o755);
      assert.notEqual(await hashDirectory(b), changed, 'mode counts');
      await symlink('2.txt', join(a, 'link'));
      const linked = await hashDirectory(a);
      await rm(join(a, 'link'));
      await symlink('x/1.txt', join(a, 'link'));
      assert.notEqual(await hashDirectory(a), linked, 'symlink target counts');
    } finally {
      await rm(a, { recursive: true, force: true });
      await rm(b, { recursive: true, force: true });
    }
  });
});

describe('recipeKey', () => {
  it('ignores key order at every level and sees every value', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 4, e: 5 }] } }),
      '{"a":{"c":[3,{"e":5,"f":4}],"d":2},"b":1}',
    );
    assert.equal(recipeKey({ a: 1, b: 2 }), recipeKey({ b: 2, a: 1 }));
    assert.notEqual(recipeKey({ a: 1 }), recipeKey({ a: 2 }));
    assert.match(recipeKey({}), /^[0-9a-f]{64}$/);
  });
});
