import { dockerTestEnvironment } from '../sandbox/docker/docker-test-support.ts';
import { createProvider } from '../sandbox/index.ts';
import { runEvaluateIntegration } from './testing/evaluate-integration.ts';

const environment = await dockerTestEnvironment();

runEvaluateIntegration({
  name: 'docker',
  provider: () => createProvider('docker'),
  image: environment.image,
  skip: environment.skip,
});
