import { after } from 'node:test';
import { createE2BProvider } from '../sandbox/e2b/index.ts';
import { runHostSideAttacks } from '../sandbox/host-side-attacks.ts';
import type { SandboxProvider } from '../sandbox/index.ts';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

/** The host-side attacks through the e2b provider against `sandgym serve` (local sandboxes behind it). */
const KEY = 'sgk_host-side-attacks-test-key';
let server: TestServer | undefined;

runHostSideAttacks({
  name: 'e2b',
  provider: async (): Promise<SandboxProvider> => {
    server = await startTestServer({ keys: [KEY], createsPerSecondPerKey: 100 });
    return createE2BProvider({ options: { apiKey: KEY, apiUrl: server.url, sandboxUrl: server.url } }, {});
  },
  image: 'sandgym/base',
  skip: await localTestSkipReason(),
});

after(() => server?.close());
