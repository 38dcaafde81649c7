import { runHostSideAttacks } from '../host-side-attacks.ts';
import { createLocalProvider } from './index.ts';
import { localTestSkipReason } from './test-support.ts';

runHostSideAttacks({
  name: 'local',
  provider: () => createLocalProvider(),
  image: 'sandgym/base',
  skip: await localTestSkipReason(),
});
