import { runSandboxConformance } from '../conformance.ts';
import { createLocalProvider } from './index.ts';
import { localTestSkipReason } from './test-support.ts';

// The path hosts without a C compiler take: a shell with unshare, mount and nsenter instead of the helper.
runSandboxConformance({
  name: 'local-shell',
  provider: () => createLocalProvider({ options: { helper: 'never' } }),
  image: 'sandgym/base',
  skip: await localTestSkipReason(),
});
