import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isSandboxError } from '../errors.ts';
import type { Sandbox, SandboxProvider } from '../sandbox/index.ts';
import type { SweTask } from '../tasks/index.ts';
import { prepareSandbox } from './prepare.ts';
import { type EnvConfig, SWEEnv } from './swe-env.ts';
import { buildCalcRepoImage, type CalcRepoImage } from './testing/calc-repo.ts';
import { debugTask, sweTask } from './testing/fixture-tasks.ts';
import { localTestEnvironment } from './testing/provider-sandboxes.ts';

const local = await localTestEnvironment();

const CONFIG: EnvConfig = {
  tools: ['file_editor', 'search', 'execute_bash', 'finish'],
  step_timeout_s: 60,
  reward_timeout_s: 120,
  max_observation_chars: 10_000,
};

describe('SWEEnv tools on a SWE-bench task (local provider)', {
  skip: local.skip ?? false,
  timeout: 300_000,
}, () => {
  let provider: SandboxProvider;
  let calc: CalcRepoImage;
  let task: SweTask;
  const open: { sandbox: Sandbox; env: SWEEnv }[] = [];

  async function episode(config: Partial<EnvConfig> = {}, blockedCommands?: string[]) {
    const sandbox = await prepareSandbox(task, provider);
    const env = new SWEEnv(task, sandbox, {
      config: { ...CONFIG, ...config },
      provider,
      ...(blockedCommands ? { blockedCommands } : {}),
    });
    open.push({ sandbox, env });
    const step = async (name: string, args: unknown) =>
      (await env.step({ name, arguments: args })).observation;
    return { env, sandbox, step };
  }

  before(async () => {
    provider = await local.provider();
    calc = await buildCalcRepoImage(provider);
    task = sweTask({ image: calc.image, baseCommit: calc.baseCommit, testPatch: calc.testPatch });
  });
  after(async () => {
    for (const { env, sandbox } of open) {
      await env.close();
      await sandbox.close();
    }
    await provider.close();
  });

  it('views a directory two levels deep without hidden files, and files with line numbers', async () => {
    const { step } = await episode();
    assert.equal(
      await step('file_editor', { command: 'view', path: '/testbed' }),
      'Files and directories up to 2 levels deep in /testbed, hidden ones excluded:\n' +
        '/testbed/calc.py\n/testbed/conftest.py\n/testbed/tests/\n/testbed/tests/test_calc.py\n',
    );
    assert.match(
      await step('file_editor', { command: 'view', path: 'calc.py' }),
      /^ {5}1\tdef double\(x\):\n {5}2\t {4}return x \+ 1\n/m,
    );
    assert.equal(
      await step('file_editor', { command: 'view', path: 'calc.py', view_range: [5, 6] }),
      "Here's the result of running `cat -n` on /testbed/calc.py, lines 5-6:\n     5\tdef triple(x):\n     6\t    return x * 3\n",
    );
    assert.match(
      await step('file_editor', { command: 'view', path: 'calc.py', view_range: [9, 10] }),
      /start must be between 1 and 6/,
    );
    assert.match(await step('file_editor', { command: 'view', path: 'nope.py' }), /nope\.py does not exist/);
  });

  it('file_editor view of a 20 GiB sparse file (truncate -s 20G) says it is too large; the trainer stays small', async () => {
    const { sandbox, step } = await episode();
    assert.equal((await sandbox.exec('truncate -s 20G /testbed/huge.py')).exitCode, 0);
    const rssBefore = process.memoryUsage().rss;
    for (const command of ['view', 'str_replace']) {
      const observation = await step('file_editor', { command, path: 'huge.py', old_str: 'a', new_str: 'b' });
      assert.match(observation, /huge\.py is larger than 16777216 bytes.*execute_bash/s);
    }
    const grownMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    assert.ok(grownMiB < 256, `the trainer grew by ${grownMiB.toFixed(0)} MiB`);
  });

  it('searches file contents, one file, and file names', async () => {
    const { step } = await episode();
    assert.equal(
      await step('search', { search_term: 'calc.' }),
      'Found 1 matches for "calc." in /testbed:\n/testbed/tests/test_calc.py (1 match)\nSearch a file to see its matching lines.',
    );
    assert.equal(
      await step('search', { search_term: 'return', path: 'calc.py' }),
      'Matches for "return" in /testbed/calc.py:\n2:    return x + 1\n6:    return x * 3',
    );
    assert.match(
      await step('search', { search_term: 'test_*.py', mode: 'filename' }),
      /\/testbed\/tests\/test_calc\.py$/,
    );
    assert.match(await step('search', { search_term: 'zebra' }), /No matches found for "zebra"/);
    await step('execute_bash', {
      cmd: 'mkdir many && for i in $(seq 101); do echo needle > many/f$i.txt; done',
    });
    assert.match(
      await step('search', { search_term: 'needle' }),
      /More than 100 files matched "needle".*narrow your search/,
    );
  });

  it('str_replace edits a unique match and refuses none or several, with line numbers', async () => {
    const { step, sandbox } = await episode();
    assert.match(
      await step('file_editor', {
        command: 'str_replace',
        path: 'calc.py',
        old_str: 'return x',
        new_str: 'return y',
      }),
      /old_str occurs 2 times in \/testbed\/calc\.py, at lines 2, 6\. Include more surrounding lines/,
    );
    assert.match(
      await step('file_editor', {
        command: 'str_replace',
        path: 'calc.py',
        old_str: 'return x+1',
        new_str: 'x',
      }),
      /old_str does not appear verbatim in \/testbed\/calc\.py/,
    );
    const edited = await step('file_editor', {
      command: 'str_replace',
      path: 'calc.py',
      old_str: 'x + 1',
      new_str: 'x * 2',
    });
    assert.match(
      edited,
      /has been edited\. Here's the result of running `cat -n` on a snippet of it:\n {5}1\tdef double\(x\):\n {5}2\t {4}return x \* 2\n/,
    );
    assert.match((await sandbox.readFile('/testbed/calc.py')).toString(), /return x \* 2\n/);
  });

  it('inserts after a line (numbers as strings too, as XML calls send them) and undoes edit by edit', async () => {
    const { step, sandbox } = await episode();
    const original = (await sandbox.readFile('/testbed/calc.py')).toString();
    assert.match(
      await step('file_editor', {
        command: 'insert',
        path: 'calc.py',
        insert_line: '0',
        new_str: 'import math',
      }),
      /1\timport math\n {5}2\tdef double/,
    );
    await step('file_editor', {
      command: 'str_replace',
      path: 'calc.py',
      old_str: 'x * 3',
      new_str: 'x + x + x',
    });
    assert.match(
      await step('file_editor', { command: 'insert', path: 'calc.py', insert_line: 99, new_str: 'x' }),
      /between 0 and 7/,
    );
    await step('file_editor', { command: 'undo_edit', path: 'calc.py' });
    assert.equal((await sandbox.readFile('/testbed/calc.py')).toString(), `import math\n${original}`);
    await step('file_editor', { command: 'undo_edit', path: 'calc.py' });
    assert.equal((await sandbox.readFile('/testbed/calc.py')).toString(), original);
    assert.match(
      await step('file_editor', { command: 'undo_edit', path: 'calc.py' }),
      /no edit of \/testbed\/calc\.py to undo/,
    );
    assert.match(
      await step('file_editor', { command: 'create', path: 'calc.py', file_text: 'x' }),
      /already exists/,
    );
    await step('file_editor', { command: 'create', path: 'pkg/new.py', file_text: 'A = 1\n' });
    assert.match(
      await step('file_editor', { command: 'undo_edit', path: 'pkg/new.py' }),
      /the file is removed/,
    );
    assert.equal((await sandbox.exec('test -e /testbed/pkg/new.py')).exitCode, 1);
  });

  it('runs bash with labelled output and exit code, refuses git, and kills a command at the step deadline', async () => {
    const { step } = await episode({ step_timeout_s: 2 });
    assert.equal(
      await step('execute_bash', { cmd: 'echo out; echo err >&2; exit 3' }),
      'Exit code: 3\n[STDOUT]\nout\n[STDERR]\nerr',
    );
    assert.match(
      await step('execute_bash', { cmd: 'cd /testbed && git log --all' }),
      /not run: "git" commands are not allowed/,
    );
    const slow = await step('execute_bash', { cmd: 'echo started; sleep 30' });
    assert.match(slow, /did not finish within 2 s and was killed \(exit code 124\)/);
    assert.match(slow, /\[STDOUT\]\nstarted/);
  });

  it('cuts a huge observation to env.max_observation_chars with a marker', async () => {
    const { step } = await episode({ max_observation_chars: 2000 });
    const out = await step('execute_bash', { cmd: 'seq 1 100000' });
    assert.ok(out.length <= 2000, `${out.length} chars`);
    assert.match(out, /characters omitted/);
    assert.match(out, /\n100000\n\[STDERR\]\n$/);
  });

  it('answers malformed calls with the schema, and never throws for them', async () => {
    const { env } = await episode();
    const unknown = await env.step({ name: 'bash', arguments: { cmd: 'ls' } });
    assert.equal(unknown.invalid, true);
    assert.match(
      unknown.observation,
      /no tool named "bash". The tools are: file_editor, search, execute_bash, finish/,
    );
    const bad = await env.step({
      name: 'file_editor',
      arguments: '{"command": "view", "path": 3, "line": 1}',
    });
    assert.match(
      bad.observation,
      /argument "path" must be a string.*unknown argument "line".*\nIts parameters:\nfile_editor\(/s,
    );
  });

  it("takes the agent's patch against the start, even after it commits, leaving out the grader's files", async () => {
    const { env, step } = await episode({}, []);
    await step('file_editor', {
      command: 'str_replace',
      path: 'calc.py',
      old_str: 'x + 1',
      new_str: 'x * 2',
    });
    await step('execute_bash', {
      cmd: 'echo "# mine" > notes.py && git add -A && git -c user.name=a -c user.email=a@a commit -qm wip',
    });
    await step('execute_bash', {
      cmd: 'echo "def test_cheat(): pass" >> tests/test_calc.py && mkdir -p tests && echo x > tests/test_new.py',
    });
    const patch = await env.patch();
    assert.match(patch, /^diff --git a\/calc\.py b\/calc\.py\n/m);
    assert.match(patch, /^- {4}return x \+ 1\n\+ {4}return x \* 2$/m);
    assert.match(patch, /^diff --git a\/notes\.py b\/notes\.py\nnew file mode/m);
    assert.doesNotMatch(patch, /tests\//, 'files the test patch owns are the grader’s');
  });

  it('grades on a fresh sandbox: the gold fix resolves, no change does not, cheating on tests does not', async () => {
    const fixed = await episode();
    await fixed.step('file_editor', {
      command: 'str_replace',
      path: 'calc.py',
      old_str: 'x + 1',
      new_str: 'x * 2',
    });
    const resolved = await fixed.env.grade();
    assert.equal(resolved.grade.status, 'resolved', resolved.log);
    assert.equal(resolved.reward, 1);
    assert.equal(resolved.patch, calc.goldPatch);

    const idle = await episode();
    const unresolved = await idle.env.grade();
    assert.deepEqual([unresolved.grade.status, unresolved.reward, unresolved.patch], ['unresolved', 0, '']);

    const cheat = await episode({}, []);
    await cheat.step('execute_bash', {
      cmd: 'printf "\\n\\ndef test_double():\\n    pass\\n" >> tests/test_calc.py',
    });
    assert.match(await cheat.step('execute_bash', { cmd: 'python3 -m pytest -q tests' }), /passed/);
    const cheated = await cheat.env.grade();
    assert.equal(cheated.grade.status, 'unresolved', cheated.log);
  });

  it("grades the patch alone: breaking the agent's own environment does not matter", async () => {
    const { env, step } = await episode({}, []);
    await step('file_editor', {
      command: 'str_replace',
      path: 'calc.py',
      old_str: 'x + 1',
      new_str: 'x * 2',
    });
    await step('execute_bash', { cmd: 'rm -rf /usr/lib/python3/dist-packages/_pytest /usr/bin/git' });
    const graded = await env.grade(calc.goldPatch);
    assert.equal(graded.grade.status, 'resolved', graded.log);
  });

  it('keeps a grading error apart: a patch that does not apply has no reward, not a 0', async () => {
    const { env } = await episode();
    const broken =
      '--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n-def nothing_like_this():\n+def x():\n     pass\n';
    const graded = await env.grade(broken);
    assert.deepEqual(
      [graded.grade.status, graded.grade.error, graded.reward],
      ['error', 'patch_apply_failed', null],
    );
  });

  it('throws a SandboxError when the sandbox is gone: an infrastructure fault, not an observation', async () => {
    const { env, sandbox } = await episode();
    await sandbox.close();
    await assert.rejects(
      env.step({ name: 'file_editor', arguments: { command: 'view', path: 'calc.py' } }),
      (e: unknown) => isSandboxError(e),
    );
  });

  it('ends the episode on finish, or on submit as an alias', async () => {
    for (const [name, args] of [
      ['finish', { command: 'submit', result: 'fixed double' }],
      ['submit', {}],
    ] as const) {
      const { env } = await episode();
      const r = await env.step({ name, arguments: args });
      assert.deepEqual([r.done, r.submitted, r.invalid], [true, true, false]);
      const again = await env.step({ name: 'file_editor', arguments: { command: 'view', path: '.' } });
      assert.equal(again.done, true);
      assert.match(again.observation, /already submitted/);
    }
  });
});

describe('SWEEnv on a debugging task (local provider)', {
  skip: local.skip ?? false,
  timeout: 300_000,
}, () => {
  let provider: SandboxProvider;
  const open: { sandbox: Sandbox; env: SWEEnv }[] = [];

  before(async () => {
    provider = await local.provider();
  });
  after(async () => {
    for (const { env, sandbox } of open) {
      await env.close();
      await sandbox.close();
    }
    await provider.close();
  });

  async function episode() {
    const task = debugTask();
    const sandbox = await prepareSandbox(task, provider);
    const env = new SWEEnv(task, sandbox, {
      config: { ...CONFIG, tools: ['file_editor', 'execute_bash', 'finish'] },
      provider,
    });
    open.push({ sandbox, env });
    return env;
  }

  it('resolves a fixed program, and refuses to count edits of the read-only test file', async () => {
    const fixed = await episode();
    await fixed.step({
      name: 'file_editor',
      arguments: { command: 'str_replace', path: 'solution.py', old_str: 'a - b', new_str: 'a + b' },
    });
    await fixed.step({ name: 'execute_bash', arguments: { cmd: 'python -m pytest -q test.py' } });
    const patch = await fixed.patch();
    assert.deepEqual(
      [...patch.matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1]),
      ['solution.py'],
      'only the fix: no __pycache__, no .pytest_cache',
    );
    const good = await fixed.grade();
    assert.deepEqual([good.grade.status, good.reward], ['resolved', 1], good.log);

    const cheat = await episode();
    await cheat.step({
      name: 'execute_bash',
      arguments: { cmd: "sed -i 's/== 3$/== -1/' test.py && python -m pytest -q test.py" },
    });
    assert.equal(await cheat.patch(), '');
    const bad = await cheat.grade();
    assert.deepEqual([bad.grade.status, bad.reward], ['unresolved', 0], bad.log);
  });
});
