import { after } from 'node:test';
import { runSandboxConformance } from '../sandbox/conformance.ts';
import { createE2BProvider } from '../sandbox/e2b/index.ts';
import { ImageStore, resolveHome } from '../sandbox/images/index.ts';
import type { SandboxProvider } from '../sandbox/index.ts';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { hashApiKey } from './api-keys.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

/**
 * The e2b provider, speaking the E2B protocol over HTTP to `sandgym serve` started in this process on a
 * free port, with the local provider behind it: the whole client–server path passes the one suite.
 */
const KEY = 'sgk_conformance-test-key';
let server: TestServer | undefined;

runSandboxConformance({
  name: 'e2b',
  provider: async (): Promise<SandboxProvider> => {
    server = await startTestServer({
      keys: [KEY],
      maxSandboxesPerKey: 64,
      createsPerSecondPerKey: 100,
      // The suite holds its sandboxes until it ends (about 40, of 512 processes each): more than the
      // host-wide cap (half the kernel's pid table) allows on a host with the classic pid_max of 32,768.
      hostCaps: { pids: 64 * 512 },
    });
    return createE2BProvider({ options: { apiKey: KEY, apiUrl: server.url, sandboxUrl: server.url } }, {});
  },
  image: 'sandgym/base',
  skip: await localTestSkipReason(),
});

after(async () => {
  await server?.close();
  // The suite's snapshot lands in the key's snapshot namespace of the local image store.
  const image = `sandgym-serve/${hashApiKey(KEY).slice(0, 16)}/sandgym-conformance-snapshot-e2b:latest`;
  await new ImageStore(resolveHome()).remove(image).catch(() => {});
});
