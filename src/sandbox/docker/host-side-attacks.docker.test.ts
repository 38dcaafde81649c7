import { runHostSideAttacks } from '../host-side-attacks.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { createDockerProvider } from './index.ts';

const environment = await dockerTestEnvironment();

runHostSideAttacks({
  name: 'docker',
  provider: () => createDockerProvider(),
  image: environment.image,
  skip: environment.skip,
});
