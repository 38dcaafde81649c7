import Docker from 'dockerode';

/** Images the docker tests can run on, best first: the real base image, else the scratch one. */
const CANDIDATE_IMAGES = ['sandgym/base', 'sandgym/scratch-test'];

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
  for (const image of CANDIDATE_IMAGES) {
    const found = await docker
      .getImage(image)
      .inspect()
      .then(
        () => true,
        () => false,
      );
    if (found) return { skip: undefined, image };
  }
  return { skip: 'no sandgym/base image in Docker; run "sandgym images build base"', image: '' };
}
