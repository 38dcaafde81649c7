import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../errors.ts';
import { normalizeImageName } from '../images/index.ts';

/**
 * Which E2B template (AGS: sandbox tool) a docker image runs as. The map file is JSON with one entry
 * per image, either `{"<image>": "<template>"}` or the objects AGS's `ags_tool_sync.py` writes to
 * tool_mapping.json, `{"<image>": {"tool_name": "<template>", …}}` (`template` is read the same way).
 * An image without an entry runs as the template of its own name, which is what `sandgym serve` expects.
 */
export class TemplateMap {
  private readonly byImage: Map<string, string>;

  constructor(entries: Record<string, string> = {}) {
    this.byImage = new Map(Object.entries(entries).map(([image, template]) => [imageKey(image), template]));
  }

  static async load(path: string, extra: Record<string, string> = {}): Promise<TemplateMap> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read the template map ${path}: ${(e as Error).message}`, { cause: e });
    }
    return new TemplateMap({ ...parseTemplateMap(text, path), ...extra });
  }

  /** The template of `image`: its entry, else the image name itself. */
  templateFor(image: string): string {
    return this.byImage.get(imageKey(image)) ?? image;
  }

  has(image: string): boolean {
    return this.byImage.has(imageKey(image));
  }

  set(image: string, template: string): void {
    this.byImage.set(imageKey(image), template);
  }
}

/** The entries of a template map file's text; `source` names it in errors. */
export function parseTemplateMap(text: string, source: string): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`template map ${source} is not JSON: ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`template map ${source} must be a JSON object of image → template`);
  }
  const out: Record<string, string> = {};
  for (const [image, value] of Object.entries(json)) {
    const template =
      typeof value === 'string'
        ? value
        : typeof value === 'object' && value !== null
          ? ((value as { template?: unknown; tool_name?: unknown }).template ??
            (value as { tool_name?: unknown }).tool_name)
          : undefined;
    if (typeof template !== 'string' || template === '') {
      throw new ConfigError(
        `template map ${source}: the entry of "${image}" must be a template name or an object with ` +
          '"template" (or AGS\'s "tool_name")',
      );
    }
    try {
      imageKey(image);
    } catch (e) {
      throw new ConfigError(`template map ${source}: ${(e as Error).message}`);
    }
    out[image] = template;
  }
  return out;
}

/** Images are compared in their canonical form, so `repo/x` and `repo/x:latest` share an entry. */
function imageKey(image: string): string {
  return normalizeImageName(image);
}
