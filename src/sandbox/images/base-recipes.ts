/**
 * The base images sandgym builds itself, with debootstrap from Debian's mirror (Docker Hub is not
 * needed). A recipe is everything that decides the image's content; its sha256 names the cached layer,
 * so changing any field here rebuilds. The mirror is not part of it: every mirror serves the same files.
 */
export interface DebootstrapRecipe {
  kind: 'debootstrap';
  /** Bump when the build steps around debootstrap change. */
  format: 1;
  suite: string;
  variant: 'minbase';
  include: readonly string[];
  env: Readonly<Record<string, string>>;
  workdir: string;
}

export interface BaseImage {
  /** The image name sandboxes use. */
  image: string;
  recipe: DebootstrapRecipe;
}

export const DEFAULT_DEBIAN_MIRROR = 'http://deb.debian.org/debian';

export const BASE_IMAGES: Readonly<Record<string, BaseImage>> = {
  base: {
    image: 'sandgym/base:latest',
    recipe: {
      kind: 'debootstrap',
      format: 1,
      suite: 'bookworm',
      variant: 'minbase',
      include: ['python3', 'python3-pytest', 'git', 'patch', 'ca-certificates', 'procps'],
      env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
      workdir: '/',
    },
  },
};

/** The base image called `name` (`base` or its image name `sandgym/base`), or undefined. */
export function findBaseImage(name: string): BaseImage | undefined {
  const byImage = Object.values(BASE_IMAGES).find((b) => b.image === name || b.image === `${name}:latest`);
  return Object.hasOwn(BASE_IMAGES, name) ? BASE_IMAGES[name] : byImage;
}
