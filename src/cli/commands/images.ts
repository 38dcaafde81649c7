import type { Command } from 'commander';
import {
  BASE_IMAGES,
  buildBaseImage,
  connectDocker,
  type ImageRecord,
  ImageStore,
  normalizeImageName,
  RECIPE_LABEL,
  resolveHome,
} from '../../sandbox/images/index.ts';
import { layersInUse } from '../../sandbox/local/sandbox-dirs.ts';
import { formatTable } from '../table.ts';
import { listAgsTools, registerImagesSyncCommand } from './images-ags.ts';

function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}

async function listImages(): Promise<void> {
  const store = new ImageStore(resolveHome());
  const images = await store.list();
  const docker = await connectDocker();
  const rows = [['NAME', 'LAYERS', 'SIZE', 'CREATED', 'SOURCE', 'IN DOCKER']];
  for (const image of images) {
    const infos = await Promise.all(image.layers.map((k) => store.layerInfo(k)));
    const size = infos.reduce((sum, info) => sum + (info?.sizeBytes ?? 0), 0);
    const inDocker = docker
      ? await docker
          .getImage(image.name)
          .inspect()
          .then(
            () => 'yes',
            () => 'no',
          )
      : '-';
    const missing = infos.some((i) => !i) ? ' (layers missing)' : '';
    rows.push([
      image.name,
      String(image.layers.length),
      formatBytes(size) + missing,
      image.createdAt,
      image.source,
      inDocker,
    ]);
  }
  process.stdout.write(`${formatTable(rows)}\n`);
  if (!docker) process.stdout.write('(no Docker engine answered: IN DOCKER unknown)\n');
}

async function removeImages(names: string[]): Promise<void> {
  const home = resolveHome();
  const store = new ImageStore(home);
  const docker = await connectDocker();
  for (const raw of names) {
    const name = normalizeImageName(raw);
    const record: ImageRecord | undefined = await store.remove(name);
    let dockerNote = '';
    if (docker && record) {
      // Only the copy sandgym imported goes: a Docker image someone pulled is theirs.
      const info = await docker
        .getImage(name)
        .inspect()
        .catch(() => undefined);
      if (info?.Config?.Labels?.[RECIPE_LABEL] === record.recipeKey) {
        await docker.getImage(name).remove();
        dockerNote = ' (and its Docker copy)';
      }
    }
    if (!record) {
      process.stderr.write(
        `sandgym: image "${raw}" is not in the local cache; "sandgym images list" shows what is\n`,
      );
      process.exitCode = 1;
      continue;
    }
    const inUse = await layersInUse(`${home}/sandboxes`);
    const freed = await store.pruneLayers(inUse, { candidates: record.layers, minAgeMs: 0 });
    const kept = record.layers.length - freed.length;
    const keptNote = kept > 0 ? `; ${kept} layer(s) kept, used by other images or running sandboxes` : '';
    process.stdout.write(`removed ${name}${dockerNote}${keptNote}\n`);
  }
}

export function registerImagesCommand(program: Command): void {
  const images = program
    .command('images')
    .description('Build, list and remove sandbox images (local cache).');
  images
    .command('build')
    .description(
      `Build a base image with debootstrap (${Object.keys(BASE_IMAGES).join(', ')}); instant when cached.`,
    )
    .argument('<name>', 'base image to build, e.g. "base" (→ sandgym/base)')
    .option(
      '--mirror <url>',
      'Debian mirror (default $SANDGYM_DEBIAN_MIRROR or http://deb.debian.org/debian)',
    )
    .option('--no-docker', 'do not import the image into a Docker engine')
    .action(async (name: string, opts: { mirror?: string; docker: boolean }) => {
      const mirror = opts.mirror ?? process.env.SANDGYM_DEBIAN_MIRROR;
      const result = await buildBaseImage(name, {
        ...(mirror && { mirror }),
        docker: opts.docker ? 'auto' : 'skip',
        onLog: (line) => process.stderr.write(`  ${line}\n`),
      });
      const docker = {
        imported: 'imported into Docker',
        current: 'Docker copy current',
        'no-engine': 'no Docker engine answered, not imported',
        skipped: 'Docker skipped',
      }[result.docker];
      process.stdout.write(`${result.image}: ${result.cached ? 'cached' : 'built'} (${docker})\n`);
    });
  images
    .command('list')
    .description(
      'List cached images: layers, size, creation time, Docker copy; with --provider ags, the sandbox tools sandgym made.',
    )
    .option(
      '--provider <name>',
      'ags: list AgentSandbox tools instead (TENCENTCLOUD_SECRET_ID/KEY, AGS_REGION)',
    )
    .option('--region <region>', 'AGS region (default $AGS_REGION)')
    .action((f: { provider?: string; region?: string }) =>
      f.provider === undefined ? listImages() : listAgsTools(f),
    );
  images
    .command('rm')
    .description('Remove images from the local cache (and the Docker copies sandgym imported).')
    .argument('<names...>', 'image names')
    .action(removeImages);
  registerImagesSyncCommand(images);
}
