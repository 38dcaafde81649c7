import { errorMessage } from '../errors.ts';
import { createProvider } from '../sandbox/index.ts';
import { runEvaluateIntegration } from './testing/evaluate-integration.ts';

const IMAGE = 'sandgym/base:latest';

/** Why the local provider cannot run these tests here, or undefined when it can. */
async function localSkipReason(): Promise<string | undefined> {
  try {
    const provider = await createProvider('local');
    try {
      if (!(await provider.hasImage(IMAGE)))
        return `the local provider has no ${IMAGE}; run "sandgym images build base"`;
    } finally {
      await provider.close();
    }
    return undefined;
  } catch (e) {
    return `the local sandbox provider is not available: ${errorMessage(e)}`;
  }
}

runEvaluateIntegration({
  name: 'local',
  provider: () => createProvider('local'),
  image: IMAGE,
  skip: await localSkipReason(),
});
