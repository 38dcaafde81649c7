import { isOrphan } from '../owner.ts';
import { LABELS } from '../types.ts';
import type { AgsApi } from './ags-client.ts';
import { listSandgymTools } from './tool-sync.ts';

export interface AgsGcReport {
  /** Instances stopped: their run is dead or their TTL passed (all of them with `all`). */
  stopped: string[];
  /** Instances left to live runs. */
  kept: number;
  /** Tools deleted (only with `all`: tools are the image cache every later run reuses). */
  deletedTools: string[];
}

/**
 * `gc --provider ags`: stops the instances of sandgym's tools that no live run owns (the run id and TTL
 * the e2b provider puts in a sandbox's metadata); with `all`, all of sandgym's instances and then the tools
 * themselves. Instances without sandgym's run label are someone else's: they stay, and so does their tool.
 */
export async function gcAgs(api: AgsApi, o: { all?: boolean } = {}): Promise<AgsGcReport> {
  const report: AgsGcReport = { stopped: [], kept: 0, deletedTools: [] };
  for (const tool of (await listSandgymTools(api)).values()) {
    let foreign = 0;
    for (const instance of await instancesOf(api, tool.ToolId)) {
      const m = Object.fromEntries((instance.Metadata ?? []).map((x) => [x.Name, x.Value]));
      const run = m[LABELS.run];
      if (run === undefined) {
        foreign++;
        continue;
      }
      const num = (v: string | undefined) =>
        v === undefined || Number.isNaN(Number(v)) ? undefined : Number(v);
      if (o.all || isOrphan({ run, createdAtMs: num(m[LABELS.createdAt]), ttlMs: num(m[LABELS.ttlMs]) })) {
        await api.call('StopSandboxInstance', { InstanceId: instance.InstanceId });
        report.stopped.push(instance.InstanceId);
      } else report.kept++;
    }
    if (o.all && foreign === 0) {
      await api.call('DeleteSandboxTool', { ToolId: tool.ToolId });
      report.deletedTools.push(tool.ToolId);
    }
  }
  return report;
}

interface InstanceSummary {
  InstanceId: string;
  Metadata?: { Name?: string; Value?: string }[];
}

async function instancesOf(api: AgsApi, toolId: string): Promise<InstanceSummary[]> {
  const all: InstanceSummary[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await api.call<{ InstanceSet?: InstanceSummary[]; TotalCount?: number }>(
      'DescribeSandboxInstanceList',
      { ToolId: toolId, Offset: offset, Limit: 100 },
    );
    all.push(...(page.InstanceSet ?? []));
    if ((page.InstanceSet ?? []).length < 100) return all;
  }
}
