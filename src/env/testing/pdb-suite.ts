import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sandbox, SandboxProvider } from '../../sandbox/index.ts';
import { prepareSandbox } from '../prepare.ts';
import { type EnvConfig, SWEEnv } from '../swe-env.ts';
import { debugTask } from './fixture-tasks.ts';
import { type ProviderTestEnvironment, sh } from './provider-sandboxes.ts';

/** Processes in the sandbox running `python3 -m pdb …`. */
async function pdbProcesses(sandbox: Sandbox): Promise<number> {
  const out = await sh(
    sandbox,
    'for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done 2>/dev/null',
  );
  return out.split('\n').filter((l) => l.startsWith('python3 -m pdb')).length;
}

/** SWE-PDB's tool set: pdb on, bash off. */
const CONFIG: EnvConfig = {
  tools: ['file_editor', 'search', 'pdb', 'finish'],
  step_timeout_s: 60,
  reward_timeout_s: 120,
  max_observation_chars: 10_000,
};

/**
 * The pdb tool's tests, run on each real provider: the session lives on `spawn`, stdin and signals, the
 * parts of the Sandbox contract where providers differ most.
 */
export function runPdbSuite(target: ProviderTestEnvironment): void {
  describe(`the pdb tool on a debugging task (${target.name} provider)`, {
    skip: target.skip ?? false,
    timeout: 600_000,
  }, () => {
    let provider: SandboxProvider;
    const open: { sandbox: Sandbox; env: SWEEnv }[] = [];

    async function episode(config: Partial<EnvConfig> = {}) {
      const task = debugTask();
      const sandbox = await prepareSandbox(task, provider);
      const env = new SWEEnv(task, sandbox, { config: { ...CONFIG, ...config }, provider });
      open.push({ sandbox, env });
      const pdb = async (args: Record<string, unknown>) =>
        (await env.step({ name: 'pdb', arguments: args })).observation;
      const edit = (args: Record<string, unknown>) => env.step({ name: 'file_editor', arguments: args });
      return { env, sandbox, pdb, edit };
    }

    before(async () => {
      provider = await target.provider();
    });
    after(async () => {
      for (const { env, sandbox } of open) {
        await env.close();
        await sandbox.close();
      }
      await provider.close();
    });

    it('breaks in a function body, continues, prints locals, and refuses a def-line breakpoint', async () => {
      const { pdb } = await episode();
      assert.match(await pdb({ command: 'c' }), /No pdb session is running\. Start one first/);
      const started = await pdb({ command: 'start', runner: 'pytest', file: 'test.py' });
      assert.match(
        started,
        /^pdb started with: python3 -m pdb -m pytest -sq test\.py\n> .*pytest.*\(\d+\)<module>\(\)/,
      );
      assert.equal(
        await pdb({ command: 'b solution.py:1' }),
        'Breakpoint not set: line 1 of solution.py belongs to the header of "add" (line 1), which runs once when ' +
          'the definition is made, not on each call. Set it on the first line of the body instead: ' +
          '"b solution.py:3" (or "b add").',
      );
      assert.equal(await pdb({ command: 'b solution.py:3' }), 'Breakpoint 1 at /testbed/solution.py:3');
      assert.equal(await pdb({ command: 'c' }), '> /testbed/solution.py(3)add()\n-> total = a - b');
      assert.equal(await pdb({ command: 'p a, b' }), '(1, 2)');
      assert.equal(
        await pdb({ command: 'n; p total' }),
        '> /testbed/solution.py(4)add()\n-> return total\n' +
          'Only the first command ran ("n"); send the rest one call at a time: "p total".',
      );
      assert.equal(await pdb({ command: 'p total' }), '-1');
      assert.match(
        await pdb({ command: 'where' }),
        /\/testbed\/test\.py\(5\)test_add\(\)\n-> assert add\(1, 2\) == 3\n> \/testbed\/solution\.py\(4\)add\(\)/,
      );
      assert.match(await pdb({ command: 'b 7' }), /header of "Box" \(line 7\).*"b 9"/s);
    });

    it('restarts after an edit of the code, with breakpoints kept and moved with the lines', async () => {
      const { pdb, edit } = await episode();
      await pdb({ command: 'start', runner: 'pytest', file: 'test.py' });
      await pdb({ command: 'b solution.py:3' });
      await edit({ command: 'str_replace', path: 'solution.py', old_str: 'a - b', new_str: 'a + b' });
      await edit({ command: 'insert', path: 'solution.py', insert_line: 0, new_str: 'import math' });
      const restarted = await pdb({ command: 'c' });
      assert.match(
        restarted,
        /^\/testbed\/solution\.py changed since pdb started, so the session was restarted/,
      );
      assert.match(restarted, /Breakpoints restored: \/testbed\/solution\.py:4\./);
      assert.match(restarted, /> \/testbed\/solution\.py\(4\)add\(\)\n-> total = a \+ b$/);
      await pdb({ command: 'n' });
      assert.equal(await pdb({ command: 'p total' }), '3');
      assert.match(
        await pdb({ command: 'cl' }),
        /Clear all breaks\? y\nDeleted breakpoint \d+ at \/testbed\/solution\.py:4/,
      );
      const end = await pdb({ command: 'c' });
      assert.match(end, /2 passed/);
      assert.match(end, /The program exited via sys\.exit\(\)/);
      assert.match(end, /pdb started it again from the top/);
    });

    it('debugs one test with --trace; a program that ends says so, and the session starts again', async () => {
      const { pdb, sandbox } = await episode();
      const started = await pdb({ command: 'start', runner: 'pytest', file: 'test.py::test_add' });
      assert.match(started, /--trace/);
      assert.match(started, /> \/testbed\/test\.py\(5\)test_add\(\)\n-> assert add\(1, 2\) == 3$/);
      const ended = await pdb({ command: 'c' });
      assert.match(ended, /1 failed/);
      assert.match(ended, /The program ended \(exit code 1\) and the pdb session with it\. Start it again/);
      assert.match(await pdb({ command: 'n' }), /No pdb session is running/);
      assert.match(
        await pdb({ command: 'start', runner: 'python', file: 'solution.py' }),
        /> \/testbed\/solution\.py\(1\)<module>\(\)/,
      );
      assert.match(await pdb({ command: 'q' }), /The pdb session ended\./);
      assert.equal(await pdbProcesses(sandbox), 0, 'no pdb left');
    });

    it('says so when the restart after an edit fails, and the session is over', async () => {
      const { pdb, edit } = await episode();
      await pdb({ command: 'start', runner: 'pytest', file: 'test.py::test_add' });
      await edit({
        command: 'str_replace',
        path: 'solution.py',
        old_str: 'total = a - b',
        new_str: 'total = (a +',
      });
      const failed = await pdb({ command: 'n' });
      assert.match(failed, /changed since pdb started/);
      assert.match(
        failed,
        /pdb could not start: python3 -m pytest -sq test\.py::test_add --trace --tb=short exited/,
      );
      assert.match(failed, /SyntaxError/);
      assert.match(await pdb({ command: 'n' }), /No pdb session is running/);
    });

    it('interrupts a program that runs past the step deadline, and the session lives on', async () => {
      const { pdb, edit } = await episode({ step_timeout_s: 3 });
      await edit({ command: 'create', path: 'spin.py', file_text: 'n = 0\nwhile True:\n    n += 1\n' });
      await pdb({ command: 'start', runner: 'python', file: 'spin.py' });
      const spun = await pdb({ command: 'c' });
      assert.match(spun, /did not return before the step deadline: pdb interrupted the program/);
      assert.match(spun, /spin\.py\((2|3)\)<module>\(\)/);
      assert.match(await pdb({ command: 'p n > 0' }), /^True$/);
    });

    it('kills the session when the environment closes', async () => {
      const { env, sandbox, pdb } = await episode();
      await pdb({ command: 'start', runner: 'python', file: 'solution.py' });
      assert.equal(await pdbProcesses(sandbox), 1);
      await env.close();
      assert.equal(await pdbProcesses(sandbox), 0);
    });

    it('refuses commands it cannot drive and bad starts, helpfully', async () => {
      const { pdb } = await episode();
      assert.match(await pdb({ command: 'start', runner: 'pytest' }), /needs both runner and file/);
      assert.match(
        await pdb({ command: 'start', runner: 'python', file: 'missing.py' }),
        /\/testbed\/missing\.py is not a file/,
      );
      await pdb({ command: 'start', runner: 'python', file: 'solution.py' });
      assert.match(await pdb({ command: 'interact' }), /"interact" is not available here/);
      assert.match(await pdb({ command: 'restart' }), /command "start" instead/);
    });
  });
}
