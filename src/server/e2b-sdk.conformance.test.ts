import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { runOfficialSdkScript, type SdkCheck } from './testing/official-sdk-script.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

/** The official `e2b` npm SDK, pointed at `sandgym serve` (local provider behind it), works unchanged. */
const KEY = 'sgk_official-sdk-test-key';
const skip = await localTestSkipReason();

describe('official e2b SDK against sandgym serve', { skip: skip ?? false, timeout: 300_000 }, () => {
  let server: TestServer;
  let checks: SdkCheck[];

  before(async () => {
    server = await startTestServer({ keys: [KEY] });
    checks = await runOfficialSdkScript({ url: server.url, apiKey: KEY, template: 'sandgym/base' });
  });
  after(() => server?.close());

  for (const name of [
    'create',
    'run',
    'failing command throws CommandExitError with its output',
    'onStdout streams output',
    'stdin',
    'write and read a file',
    'list files',
    'file exists',
    'list sandboxes by metadata',
    'kill',
    'killed sandbox is gone',
  ]) {
    it(name, () => {
      const c = checks.find((x) => x.name === name);
      assert.ok(c, `the script did not get to "${name}"`);
      assert.ok(c.ok, `${name}: saw ${c.detail}`);
    });
  }

  it('leaves no sandbox behind', () => {
    assert.equal(server.server.sandboxCount, 0);
  });
});
