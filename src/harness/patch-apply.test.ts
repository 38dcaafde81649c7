import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { PATCH_APPLY_COMMANDS, restoreCommand } from './patch-apply.ts';
import { BROKEN_PATCH, createTinyRepo, GOLD_PATCH } from './testing/tiny-task.ts';

const root = mkdtempSync(join(tmpdir(), 'sandgym-patch-'));
after(() => rmSync(root, { recursive: true, force: true }));

const sh = (command: string, cwd: string) => {
  try {
    return { code: 0, out: execSync(command, { cwd, encoding: 'utf8', stdio: 'pipe' }) };
  } catch (e) {
    return { code: (e as { status: number }).status, out: '' };
  }
};

test('the first command applies a clean patch', () => {
  const repo = join(root, 'clean');
  createTinyRepo(repo);
  writeFileSync(join(repo, 'p.diff'), GOLD_PATCH);
  assert.equal(sh(`${PATCH_APPLY_COMMANDS[0]} p.diff`, repo).code, 0);
  assert.match(readFileSync(join(repo, 'calc.py'), 'utf8'), /return a \+ b/);
});

test('--reject leaves hunks and .rej files behind; restoring puts the named files back', () => {
  const repo = join(root, 'partial');
  createTinyRepo(repo);
  // One hunk applies (calc.py), one cannot (tests/test_calc.py), and one creates a file.
  const patch = [
    GOLD_PATCH,
    BROKEN_PATCH.replaceAll('calc.py', 'tests/test_calc.py'),
    'diff --git a/new_module.py b/new_module.py',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/new_module.py',
    '@@ -0,0 +1 @@',
    '+x = 1',
    '',
  ].join('\n');
  writeFileSync(join(root, 'partial.diff'), patch);
  const rejected = sh(`git apply --verbose --reject ${join(root, 'partial.diff')}`, repo);
  assert.notEqual(rejected.code, 0);
  assert.ok(existsSync(join(repo, 'tests', 'test_calc.py.rej')));
  assert.match(readFileSync(join(repo, 'calc.py'), 'utf8'), /a \+ b/, 'the good hunk stayed');

  assert.equal(sh(restoreCommand(patch), repo).code, 0);
  assert.equal(sh('git status --porcelain --untracked-files=all', repo).out, '');
  assert.equal(
    sh(`${PATCH_APPLY_COMMANDS[3]} ${join(root, 'partial.diff')}`, repo).code !== 0,
    true,
    'patch cannot apply it either',
  );
});

test('paths that need quoting survive the restore command', () => {
  const repo = join(root, 'quoted');
  createTinyRepo(repo);
  writeFileSync(join(repo, "it's here.py"), 'x\n');
  const patch =
    "diff --git a/it's here.py b/it's here.py\nnew file mode 100644\n--- /dev/null\n+++ b/it's here.py\n";
  assert.equal(sh(restoreCommand(patch), repo).code, 0);
  assert.equal(
    existsSync(join(repo, "it's here.py")),
    false,
    'an uncommitted file the patch names is removed',
  );
});
