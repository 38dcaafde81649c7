import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import Docker from 'dockerode';
import { ConfigError } from '../../errors.ts';
import {
  AgsClient,
  agsSettingsFromEnv,
  gcAgs,
  listSandgymTools,
  type SyncResult,
  syncTools,
  TAG_DATASET,
} from '../../sandbox/ags/index.ts';
import { ensureInRegistry, parseRegistry } from '../../sandbox/docker/push-image.ts';
import { resolveHome } from '../../sandbox/images/index.ts';
import { createProgress } from '../progress.ts';
import { formatTable } from '../table.ts';
import { loadDatasets } from './datasets.ts';

interface SyncFlags {
  provider: string;
  dataset: string[];
  region?: string;
  dryRun?: boolean;
  jobs: string;
  map?: string;
  skipInvalid?: boolean;
  registry?: string;
}

export function registerImagesSyncCommand(images: Command): void {
  images
    .command('sync')
    .description(
      "Make a sandbox tool of every image of the datasets' tasks (AgentSandbox: reused when sandgym made it " +
        'before, else created with the network closed) and write the image → tool map of the e2b provider. ' +
        'Needs TENCENTCLOUD_SECRET_ID/KEY and AGS_REGION; AGS_ENDPOINT names a sandgym serve control plane.',
    )
    .requiredOption('--provider <name>', 'where the tools live: ags')
    .requiredOption('-d, --dataset <spec...>', 'datasets: files, dirs, bundled:swe, hf:<org>/<name>[@split]')
    .option('--region <region>', 'AGS region (default $AGS_REGION), e.g. ap-guangzhou')
    .option('--dry-run', 'list what would be created, create nothing')
    .option('--jobs <n>', 'creates in flight at once', '4')
    .option(
      '--map <file>',
      'the image → tool map to write (default <SANDGYM_HOME>/ags/<region>/tool_mapping.json)',
    )
    .option(
      '--registry <host[:port]/namespace>',
      'push images the Docker engine has only locally there (credentials from the Docker config) and ' +
        'make their tools pull that copy',
    )
    .option('--skip-invalid', 'skip dataset rows that fail the schema instead of stopping')
    .action(async (f: SyncFlags) => {
      if (f.provider !== 'ags') throw new ConfigError(`images sync has provider ags, not "${f.provider}"`);
      const jobs = Number(f.jobs);
      if (!Number.isSafeInteger(jobs) || jobs < 1)
        throw new ConfigError(`--jobs must be a positive integer, got "${f.jobs}"`);
      const registry = f.registry === undefined ? undefined : parseRegistry(f.registry);
      const settings = agsSettingsFromEnv(process.env, f.region);
      const tasks = await loadDatasets(f.dataset, { skipInvalid: f.skipInvalid ?? false });
      const images = [...new Set(tasks.map((t) => t.image))];
      const mapPath = f.map ?? join(resolveHome(), 'ags', settings.region, 'tool_mapping.json');
      const progress = createProgress(
        `${f.dryRun ? 'checking' : 'syncing'} ${images.length} image(s)`,
        images.length,
      );
      const results = await syncTools({
        api: new AgsClient(settings),
        images,
        dataset: f.dataset.join(','),
        mapPath,
        jobs,
        dryRun: f.dryRun ?? false,
        onResult: (r) => progress.tick({ [r.action]: r.image }),
        ...(registry && { prepareImage: pushInto(registry) }),
      }).finally(() => progress.stop());
      process.stdout.write(`${formatSyncTable(results)}\n`);
      const count = (a: SyncResult['action']) => results.filter((r) => r.action === a).length;
      process.stdout.write(
        `${images.length} image(s): ${count('created')} created, ${count('reused')} reused` +
          (f.dryRun ? `, ${count('would create')} to create (dry run)\n` : '\n') +
          (f.dryRun
            ? ''
            : `map: ${mapPath}; run with: sandbox.provider=e2b sandbox.e2b.template_map=${mapPath}\n`),
      );
    });
}

/** Pushes an image the engine has only locally into `registry`; resolves the reference AGS pulls. */
function pushInto(registry: string): (image: string) => Promise<string> {
  const docker = new Docker();
  const configPath = join(process.env.DOCKER_CONFIG ?? join(homedir(), '.docker'), 'config.json');
  return async (image) => (await ensureInRegistry(docker, image, registry, configPath)).ref;
}

export function formatSyncTable(results: readonly SyncResult[]): string {
  return formatTable([
    ['IMAGE', 'TOOL', 'TOOL ID', 'ACTION', 'PULLED AS'],
    ...results.map((r) => [r.image, r.toolName, r.toolId ?? '-', r.action, r.pulledAs ?? '-']),
  ]);
}

/** `images list --provider ags`: the tools sandgym made, by image. */
export async function listAgsTools(f: { provider?: string; region?: string }): Promise<void> {
  if (f.provider !== 'ags')
    throw new ConfigError(`images list has providers ags or none (the local cache), not "${f.provider}"`);
  const tools = await listSandgymTools(new AgsClient(agsSettingsFromEnv(process.env, f.region)));
  const rows = [['IMAGE', 'TOOL', 'TOOL ID', 'STATUS', 'DATASET']];
  for (const [image, t] of tools) {
    const dataset = t.Tags?.find((tag) => tag.Key === TAG_DATASET)?.Value ?? '';
    rows.push([image, t.ToolName ?? '', t.ToolId, t.Status ?? '', dataset]);
  }
  process.stdout.write(`${formatTable(rows)}\n`);
}

/** `gc --provider ags`: instances of sandgym's tools that no live run owns; with --all, the tools too. */
export async function gcAgsCommand(all: boolean): Promise<void> {
  const r = await gcAgs(new AgsClient(agsSettingsFromEnv(process.env)), { all });
  process.stdout.write(
    `ags: stopped ${r.stopped.length} instance(s)${r.stopped.length ? `: ${r.stopped.join(' ')}` : ''}; ` +
      `kept ${r.kept} of live runs; deleted ${r.deletedTools.length} tool(s)${all ? '' : ' (tools go only with --all)'}\n`,
  );
}
