import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { Sandbox, SandboxProcess } from '../../sandbox/index.ts';
import { PdbSession } from './pdb-session.ts';

/**
 * The session's output handling against a process whose output the test writes. A fake: the launcher
 * shell of a real sandbox always prints its pid line, and the attack below needs a replaced /bin/sh.
 */
function fakeProcess() {
  let exit: (v: { exitCode: number; signal: null }) => void = () => {};
  const process: SandboxProcess = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    kill: () => exit({ exitCode: 137, signal: null }),
    exited: new Promise((r) => (exit = r)),
  };
  const sandbox = { id: 'fake', spawn: async () => process } as unknown as Sandbox;
  return { sandbox, process, exit };
}

describe('PdbSession', () => {
  it('a launcher that prints without end and no pid line (a replaced /bin/sh) gives a bounded reply', async () => {
    const { sandbox, process, exit } = fakeProcess();
    const session = await PdbSession.start(sandbox, '', ['python3'], { cwd: '/', env: {} });
    const chunk = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 32; i++) (process.stdout as PassThrough).write(chunk);
    exit({ exitCode: 0, signal: null });
    const reply = await session.read(5_000);
    assert.equal(reply.end, 'exited');
    assert.ok(reply.output.length < 256 * 1024, `a reply of ${reply.output.length} chars`);
    assert.match(reply.output, /^x+/);
  });
});
