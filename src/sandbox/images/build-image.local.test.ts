import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocal } from '../local/index.ts';
import type { LocalProvider } from '../local/local-provider.ts';
import { localTestSkipReason, removeTestImage } from '../local/test-support.ts';
import { buildImage } from './build-image.ts';

const skip = await localTestSkipReason();

describe('buildImage on the local provider', { skip: skip ?? false, timeout: 120_000 }, () => {
  let provider: LocalProvider;
  let repo: string;
  const name = `sandgym-test/build-image:${process.pid}`;
  before(async () => {
    provider = await createLocal();
    repo = await mkdtemp(join(tmpdir(), 'sg-repo-'));
    await writeFile(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  });
  after(async () => {
    await removeTestImage(provider.store, name);
    await provider.close();
    await rm(repo, { recursive: true, force: true });
  });

  const spec = () => ({
    name,
    from: 'sandgym/base',
    workdir: '/testbed',
    steps: [{ upload: { hostDir: repo, sandboxDir: '/testbed' } }, { run: 'git init -q && git add -A' }],
  });

  it('builds once, then hits the cache until an uploaded file changes', async () => {
    const first = await buildImage(spec(), provider);
    assert.equal(first.cached, false);
    const s = await provider.create({ image: name });
    const r = await s.exec('cat calc.py && git status --short');
    assert.equal(r.stdout, 'def add(a, b):\n    return a - b\nA  calc.py\n', 'workdir and steps are kept');
    await s.close();
    const again = await buildImage(spec(), provider);
    assert.deepEqual(again, { ...first, cached: true });
    await writeFile(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
    const changed = await buildImage(spec(), provider);
    assert.equal(changed.cached, false);
    assert.notEqual(changed.key, first.key);
  });

  it('fails with the step and its output when a command fails, leaving no image', async () => {
    const bad = { ...spec(), name: `${name}-bad`, steps: [{ run: 'echo broken >&2; exit 3' }] };
    await assert.rejects(
      buildImage(bad, provider),
      /step 1 \(echo broken >&2; exit 3\) exited with 3:\nbroken/,
    );
    assert.equal(await provider.hasImage(bad.name), false);
  });
});
