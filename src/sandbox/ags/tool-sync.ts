import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../../errors.ts';
import { normalizeImageName } from '../images/index.ts';
import type { AgsApi } from './ags-client.ts';

/** The tags that mark a tool as sandgym's, and the image it was made for. */
export const TAG_OWNER = 'sandgym-owner';
export const TAG_IMAGE = 'sandgym-image';
export const TAG_DATASET = 'sandgym-dataset';

interface ToolSummary {
  ToolId: string;
  ToolName?: string;
  Status?: string;
  Tags?: { Key?: string; Value?: string }[];
}

export interface SyncResult {
  image: string;
  toolName: string;
  toolId: string | undefined;
  action: 'reused' | 'created' | 'would create';
  /** The reference the new tool pulls, when it is not the image itself (its copy in `--registry`). */
  pulledAs?: string;
}

export interface SyncOptions {
  api: AgsApi;
  images: readonly string[];
  /** Names the dataset in the new tools' tags. */
  dataset: string;
  /** The image → tool map file (the e2b provider's `template_map`), updated after each tool. */
  mapPath: string;
  dryRun?: boolean;
  /** Creates in flight at once. */
  jobs?: number;
  /** Sandbox lifetime when a start names none. */
  defaultTimeout?: string;
  onResult?: (r: SyncResult) => void;
  /** Makes an image pullable by AGS before its tool is created (a push to a registry); resolves the ref to use. */
  prepareImage?: (image: string) => Promise<string>;
}

/**
 * AGS tool names are 1–50 of [A-Za-z0-9_-]: the image's last path part and tag, made to fit, and a hash
 * of the whole name so two registries' `x:1` never share a tool.
 */
export function toolNameFor(image: string): string {
  const name = normalizeImageName(image);
  const tail = name
    .split('/')
    .pop()!
    .replace(/[^A-Za-z0-9_-]+/g, '-');
  return `${tail.slice(0, 41)}-${sha256(name).slice(0, 8)}`;
}

/**
 * The ClientToken of an image's create: the same on every run, so a create retried after a crash (the
 * tool made, the map not yet written) answers the tool made before instead of making another.
 */
export function clientTokenFor(image: string): string {
  return `sandgym-${sha256(`sandgym-tool:${normalizeImageName(image)}`).slice(0, 48)}`;
}

/**
 * Makes sure every image has an AGS sandbox tool: one sandgym made before for that image is reused
 * (DescribeSandboxToolList), else it is created (network closed, sandgym's tags, an idempotent
 * ClientToken). The map file gets each image's tool as soon as it is known, so an interrupted sync resumes.
 */
export async function syncTools(o: SyncOptions): Promise<SyncResult[]> {
  const images = [...new Set(o.images.map((i) => normalizeImageName(i)))];
  const existing = await listSandgymTools(o.api);
  const map = await readMap(o.mapPath);
  const results: SyncResult[] = [];
  let writing = Promise.resolve();
  const record = (r: SyncResult) => {
    results.push(r);
    o.onResult?.(r);
    if (r.toolId === undefined) return writing;
    map[r.image] = { tool_name: r.toolName, tool_id: r.toolId };
    // One write at a time, each of the whole map: concurrent creates never lose each other's entries.
    const text = `${JSON.stringify(map, null, 2)}\n`;
    writing = writing.then(() => writeAtomically(o.mapPath, text));
    return writing;
  };
  const one = async (image: string) => {
    const toolName = toolNameFor(image);
    const found = existing.get(image);
    if (found)
      return record({ image, toolName: found.ToolName ?? toolName, toolId: found.ToolId, action: 'reused' });
    if (o.dryRun) return record({ image, toolName, toolId: undefined, action: 'would create' });
    const ref = o.prepareImage ? await o.prepareImage(image) : image;
    const { ToolId } = await o.api.call<{ ToolId: string }>('CreateSandboxTool', {
      ToolName: toolName,
      ToolType: 'custom',
      Description: `sandgym task image ${image}`.slice(0, 200),
      NetworkConfiguration: { NetworkMode: 'SANDBOX' },
      DefaultTimeout: o.defaultTimeout ?? '1h',
      Tags: [
        { Key: TAG_OWNER, Value: 'sandgym' },
        { Key: TAG_IMAGE, Value: image },
        { Key: TAG_DATASET, Value: o.dataset },
      ],
      ClientToken: clientTokenFor(image),
      CustomConfiguration: { Image: ref, ImageRegistryType: 'custom' },
    });
    return record({
      image,
      toolName,
      toolId: ToolId,
      action: 'created',
      ...(ref !== image && { pulledAs: ref }),
    });
  };
  try {
    await pool(images, Math.max(1, o.jobs ?? 4), one);
  } finally {
    await writing;
  }
  return results;
}

/** sandgym's tools (tag sandgym-owner), by the image each was made for. */
export async function listSandgymTools(api: AgsApi): Promise<Map<string, ToolSummary>> {
  const byImage = new Map<string, ToolSummary>();
  for (let offset = 0; ; offset += 100) {
    const page = await api.call<{ SandboxToolSet?: ToolSummary[]; TotalCount?: number }>(
      'DescribeSandboxToolList',
      {
        Offset: offset,
        Limit: 100,
        Filters: [{ Name: `tag:${TAG_OWNER}`, Values: ['sandgym'] }],
      },
    );
    const tools = page.SandboxToolSet ?? [];
    for (const t of tools) {
      const image = t.Tags?.find((tag) => tag.Key === TAG_IMAGE)?.Value;
      if (image && t.Status !== 'DELETING' && t.Status !== 'FAILED')
        byImage.set(normalizeImageName(image), t);
    }
    if (tools.length < 100 || offset + tools.length >= (page.TotalCount ?? 0)) return byImage;
  }
}

async function readMap(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  try {
    const json = JSON.parse(text);
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json;
  } catch {}
  throw new ConfigError(`the tool map ${path} is not a JSON object: fix or remove it`);
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/**
 * Runs `run` over the items, `jobs` at a time. The first failure stops new starts; the calls in flight
 * finish (their tools reach the map) before it is thrown.
 */
async function pool<T>(items: readonly T[], jobs: number, run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      try {
        await run(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  if (failure) throw failure.error;
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
