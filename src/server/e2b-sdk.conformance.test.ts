import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { runOfficialSdkScript, type SdkCheck } from './testing/official-sdk-script.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

/**
 * The official `e2b` npm SDK, pointed at `sandgym serve` (local provider behind it), works unchanged:
 * every feature of the script passes, each failure shown with the SDK's own error.
 */
const KEY = 'sgk_official-sdk-test-key';
const skip = await localTestSkipReason();

/** Features sandgym serve does not have yet: reported as to-do while they fail. */
const NOT_YET = new Set<string>();

const FEATURES = [
  'create',
  'list sandboxes by metadata',
  'getInfo',
  'isRunning',
  'setTimeout extends the end',
  'connect to a running sandbox by id',
  'create with no template (base)',
  'run',
  'failing command throws CommandExitError with its output',
  'onStdout streams output',
  'cwd and envs',
  'user: commands run as the named user, in its home; an unknown user is refused',
  'stdin',
  'timeoutMs ends a command',
  'background command: list, then kill',
  'commands.kill(pid) right after start leaves nothing running',
  'commands.connect(pid) reattaches to output and exit',
  'pty.create runs a shell, resize resizes it',
  'write and read a file',
  'read bytes',
  'write several files',
  'list files',
  'file exists',
  'getInfo of a file',
  'makeDir',
  'rename',
  'remove',
  'files as another user: written, owned and read as that user',
  'reading a missing file throws NotFoundError',
  'watchDir sees a write',
  'a stopped watchDir leaves no watcher running',
  'uploadUrl takes a file',
  'downloadUrl serves a file',
  'a downloadUrl with a wrong signature is refused',
  'getMetrics',
  'snapshots: create, list, delete',
  'pause freezes, then connect resumes',
  'getHost(port) traffic reaches a server in the sandbox',
  'network allowOut is enforced or refused with a message',
  'kill',
  'killed sandbox is gone',
];

describe('official e2b SDK against sandgym serve', { skip: skip ?? false, timeout: 300_000 }, () => {
  let server: TestServer;
  let checks: SdkCheck[];

  before(async () => {
    server = await startTestServer({ keys: [KEY] });
    checks = await runOfficialSdkScript({ url: server.url, apiKey: KEY, template: 'sandgym/base' });
  });
  after(() => server?.close());

  it('the script checks exactly the features listed here', () => {
    assert.deepEqual(
      checks.map((c) => c.name),
      FEATURES,
    );
  });

  for (const name of FEATURES) {
    it(name, { todo: NOT_YET.has(name) }, () => {
      const c = checks.find((x) => x.name === name);
      assert.ok(c, `the script did not get to "${name}"`);
      assert.ok(c.ok, `${name}: saw ${c.detail}`);
    });
  }

  it('leaves no sandbox behind', () => {
    assert.equal(server.server.sandboxCount, 0);
  });
});
