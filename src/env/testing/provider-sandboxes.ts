import { errorMessage } from '../../errors.ts';
import { createProvider, type Sandbox, type SandboxProvider } from '../../sandbox/index.ts';

export const BASE_IMAGE = 'sandgym/base:latest';

export interface ProviderTestEnvironment {
  name: string;
  /** Why the sandbox tests must skip, or undefined when the provider and the base image are there. */
  skip: string | undefined;
  /** A new provider object, for one suite to use and close. */
  provider: () => Promise<SandboxProvider>;
}

/** The real `local` provider for `*.local.test.ts` files, which skip (saying why) without it. */
export function localTestEnvironment(): Promise<ProviderTestEnvironment> {
  return providerTestEnvironment('local');
}

/** A real provider (`local`, `docker`) with the base image, or why the tests using it must skip. */
export async function providerTestEnvironment(name: string): Promise<ProviderTestEnvironment> {
  const provider = () => createProvider(name);
  let probe: SandboxProvider;
  try {
    probe = await provider();
  } catch (e) {
    return { name, skip: `the ${name} sandbox provider is not available here: ${errorMessage(e)}`, provider };
  }
  try {
    if (!(await probe.hasImage(BASE_IMAGE))) {
      return { name, skip: `no ${BASE_IMAGE} image; run "node bin/sandgym.js images build base"`, provider };
    }
  } finally {
    await probe.close();
  }
  return { name, skip: undefined, provider };
}

/** Runs a shell script in a sandbox and fails the test with its output unless it exits 0. */
export async function sh(sandbox: Sandbox, script: string, cwd = '/testbed'): Promise<string> {
  const r = await sandbox.exec(['sh', '-c', `set -e\n${script}`], { cwd, timeoutMs: 60_000 });
  if (r.exitCode !== 0)
    throw new Error(`script failed (exit ${r.exitCode}):\n${script}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}
