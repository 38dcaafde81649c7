import Docker from 'dockerode';

/** The image the docker tests run on (built by "sandgym images build base"). */
const TEST_IMAGE = 'sandgym/base';

export interface DockerTestEnvironment {
  /** Why the docker tests must skip, or undefined when an engine answers and an image is there. */
  skip: string | undefined;
  image: string;
}

/** Finds a Docker engine and a test image, for `*.docker.test.ts` files (which skip without them). */
export async function dockerTestEnvironment(): Promise<DockerTestEnvironment> {
  const docker = new Docker();
  try {
    await (docker as unknown as { ping(o: { abortSignal: AbortSignal }): Promise<unknown> }).ping({
      abortSignal: AbortSignal.timeout(3000),
    });
  } catch (e) {
    return {
      skip: `no Docker engine answers (${(e as Error).message}); run "bash scripts/setup.sh"`,
      image: '',
    };
  }
  const found = await docker
    .getImage(TEST_IMAGE)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (found) return { skip: undefined, image: TEST_IMAGE };
  return { skip: `no ${TEST_IMAGE} image in Docker; run "sandgym images build base"`, image: '' };
}
