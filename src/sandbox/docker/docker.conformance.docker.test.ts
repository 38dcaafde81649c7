import { runSandboxConformance } from '../conformance.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { createDockerProvider } from './index.ts';

const environment = await dockerTestEnvironment();

runSandboxConformance({
  name: 'docker',
  provider: () => createDockerProvider(),
  image: environment.image,
  skip: environment.skip,
});
