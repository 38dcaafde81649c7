import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { baseImageRootfs, runPytest } from './run-pytest.ts';

const rootfs = (await baseImageRootfs()) ?? '';
const missing = !existsSync(join(rootfs, 'usr/bin/python3'))
  ? 'needs the base image (sandgym images build sandgym/base)'
  : spawnSync('bwrap', ['--version']).status !== 0
    ? 'needs bubblewrap (bwrap)'
    : false;

async function withModule(source: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-run-pytest-'));
  try {
    await writeFile(join(dir, 'test_m.py'), source);
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('runs pytest 7.2.1 under python 3.11 at /testbed and reads the statuses', {
  skip: missing,
}, async () => {
  const source = [
    'import sys, os, pytest',
    'def test_where():',
    '    assert os.getcwd() == "/testbed" and sys.version_info[:2] == (3, 11)',
    '    assert pytest.__version__ == "7.2.1"',
    'def test_fails():',
    '    assert False',
    '',
  ].join('\n');
  await withModule(source, async (dir) => {
    const run = await runPytest(dir, ['test_m.py'], { rootfs, label: 'probe' });
    assert.equal(run.exitCode, 1);
    assert.deepEqual(Object.fromEntries(run.report.statuses), {
      'test_m.py::test_where': 'PASSED',
      'test_m.py::test_fails': 'FAILED',
    });
  });
});

test('the sandbox has no network', { skip: missing }, async () => {
  const source = [
    'import socket',
    'def test_offline():',
    '    try:',
    '        socket.create_connection(("1.1.1.1", 53), timeout=2)',
    '    except OSError:',
    '        return',
    '    raise AssertionError("connected")',
    '',
  ].join('\n');
  await withModule(source, async (dir) => {
    const run = await runPytest(dir, [], { rootfs, label: 'probe' });
    assert.equal(run.report.statuses.get('test_m.py::test_offline'), 'PASSED');
  });
});

test('a collection error throws with the log', { skip: missing }, async () => {
  await withModule('import not_a_module\n', async (dir) => {
    await assert.rejects(
      runPytest(dir, [], { rootfs, label: 'sandgym__p-0001 (gold-patch)' }),
      /sandgym__p-0001 \(gold-patch\): pytest exited 2 \(collection or usage error\):[\s\S]*not_a_module/,
    );
  });
});

test('a run past its deadline is killed and throws', { skip: missing }, async () => {
  await withModule('import time\ndef test_slow():\n    time.sleep(30)\n', async (dir) => {
    await assert.rejects(
      runPytest(dir, [], { rootfs, label: 'slow', timeoutMs: 1500 }),
      /slow: pytest did not finish within 1.5 s/,
    );
  });
});

test('a rootfs without python3 is named in the error', async () => {
  await assert.rejects(
    runPytest(tmpdir(), [], { rootfs: '/nonexistent-rootfs', label: 'x' }),
    /\/nonexistent-rootfs has no usr\/bin\/python3; pass --rootfs/,
  );
});
