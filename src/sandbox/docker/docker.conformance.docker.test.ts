import { after } from 'node:test';
import Docker from 'dockerode';
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

// The suite's snapshot test leaves its image behind; it is ours to remove.
after(async () => {
  if (environment.skip) return;
  await new Docker()
    .getImage('sandgym-conformance/snapshot:docker')
    .remove()
    .catch(() => {});
});
