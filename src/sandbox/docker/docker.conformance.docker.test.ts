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
  gaps: {
    // runc starts every exec through a process inside the container's pids cgroup; while a bomb holds
    // all its pids that start fails (exit 126, "read init-p: connection reset by peer") however often it
    // is tried. Killing what finished execs left behind from the host (as local sandboxes do) is not built.
    'contains a fork bomb left running in the background: the next execs work':
      'a docker sandbox whose process limit a background fork bomb holds cannot start commands until the bomb ends',
  },
});

// The suite's snapshot test leaves its image behind; it is ours to remove.
after(async () => {
  if (environment.skip) return;
  await new Docker()
    .getImage('sandgym-conformance/snapshot:docker')
    .remove()
    .catch(() => {});
});
