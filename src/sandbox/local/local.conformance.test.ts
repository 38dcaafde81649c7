import { runSandboxConformance } from '../conformance.ts';
import { createLocalProvider } from './index.ts';
import { localTestSkipReason } from './test-support.ts';

runSandboxConformance({
  name: 'local',
  provider: () => createLocalProvider(),
  image: 'sandgym/base',
  skip: await localTestSkipReason(),
});
