import type { Command } from 'commander';
import { type Config, loadConfig } from '../../config/index.ts';
import { ConfigError, errorMessage } from '../../errors.ts';
import { connectDocker } from '../../sandbox/images/index.ts';
import { createProvider, type GcOptions, type GcReport } from '../../sandbox/index.ts';
import { providerOptions } from '../provider.ts';
import { gcAgsCommand } from './images-ags.ts';

const GC_PROVIDERS = ['local', 'docker'] as const;
/** e2b and ags are collected on request (`--provider e2b|ags`), as they need credentials and an API. */
const KNOWN = [...GC_PROVIDERS, 'e2b', 'ags'] as const;

export interface GcOutcome {
  reports: GcReport[];
  /** Providers skipped, and why (no Docker engine, not root, …). */
  skipped: { provider: string; reason: string }[];
}

/**
 * Garbage-collects sandboxes of dead runs (or past their TTL; everything with `all`) on each provider that
 * can run here. A provider that cannot (no Docker engine, not root for local) is skipped with its reason.
 */
export async function gcProviders(
  names: readonly string[],
  options: GcOptions = {},
  config: Config = loadConfig(),
): Promise<GcOutcome> {
  const outcome: GcOutcome = { reports: [], skipped: [] };
  for (const name of names) {
    if (name === 'docker' && !(await connectDocker())) {
      outcome.skipped.push({ provider: name, reason: 'no Docker engine answered' });
      continue;
    }
    let provider: Awaited<ReturnType<typeof createProvider>>;
    try {
      provider = await createProvider(name, providerOptions(name, config));
    } catch (e) {
      outcome.skipped.push({ provider: name, reason: errorMessage(e) });
      continue;
    }
    try {
      outcome.reports.push(await provider.gc(options));
    } finally {
      await provider.close();
    }
  }
  return outcome;
}

/** What every run does first: remove what crashed runs left behind, on every provider that answers. */
export function gcOnStart(): Promise<GcOutcome> {
  return gcProviders(GC_PROVIDERS);
}

function printOutcome(outcome: GcOutcome): void {
  for (const r of outcome.reports) {
    const ids = r.removed.length > 0 ? `: ${r.removed.join(' ')}` : '';
    process.stdout.write(
      `${r.provider}: removed ${r.removed.length} sandbox(es)${ids}; kept ${r.kept} in use\n`,
    );
  }
  for (const s of outcome.skipped) process.stdout.write(`${s.provider}: skipped (${s.reason})\n`);
}

export function registerGcCommand(program: Command): void {
  program
    .command('gc')
    .description(
      'Remove sandboxes (containers, mounts, processes, cgroups, dirs) of dead runs or past their TTL.',
    )
    .option('--provider <name>', 'local, docker, e2b, ags, or all (local and docker)', 'all')
    .option('--all', 'remove every sandgym sandbox, even of live runs')
    .action(async (opts: { provider: string; all?: boolean }) => {
      const names = opts.provider === 'all' ? GC_PROVIDERS : [opts.provider];
      if (!names.every((n) => (KNOWN as readonly string[]).includes(n))) {
        throw new ConfigError(`unknown provider "${opts.provider}" for gc; valid: ${KNOWN.join(', ')}, all`);
      }
      if (opts.provider === 'ags') return gcAgsCommand(opts.all ?? false);
      printOutcome(await gcProviders(names, { all: opts.all ?? false }));
    });
}
