import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A sandbox tool as DescribeSandboxToolList returns it (ags_models.d.ts `SandboxTool`), plus its token. */
export interface SandboxTool {
  ToolId: string;
  ToolName: string;
  ToolType: string;
  Status: 'ACTIVE';
  Description: string;
  DefaultTimeoutSeconds: number;
  NetworkConfiguration: { NetworkMode: string };
  Tags: { Key: string; Value: string }[];
  CreateTime: string;
  UpdateTime: string;
  CustomConfiguration: { Image: string; ImageRegistryType?: string };
  /** The ClientToken it was created with: a retried create answers this tool instead of making another. */
  ClientToken?: string;
}

/**
 * The sandbox tools of a self-hosted control plane, kept in a JSON file (when given) so they outlive the
 * server like AGS's do; each save replaces the file whole (write, then rename).
 */
export class ToolStore {
  private readonly tools = new Map<string, SandboxTool>();
  private saving: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string | undefined) {}

  static async open(path?: string): Promise<ToolStore> {
    const store = new ToolStore(path);
    if (path) {
      let text: string | undefined;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      for (const t of text ? (JSON.parse(text) as SandboxTool[]) : []) store.tools.set(t.ToolId, t);
    }
    return store;
  }

  all(): SandboxTool[] {
    return [...this.tools.values()];
  }

  get(id: string): SandboxTool | undefined {
    return this.tools.get(id);
  }

  byName(name: string): SandboxTool | undefined {
    return this.all().find((t) => t.ToolName === name);
  }

  byClientToken(token: string): SandboxTool | undefined {
    return this.all().find((t) => t.ClientToken === token);
  }

  async add(tool: Omit<SandboxTool, 'ToolId'>): Promise<SandboxTool> {
    const made = { ToolId: `sdt-${randomBytes(4).toString('hex')}`, ...tool };
    this.tools.set(made.ToolId, made);
    await this.save();
    return made;
  }

  async remove(id: string): Promise<void> {
    this.tools.delete(id);
    await this.save();
  }

  private save(): Promise<void> {
    const path = this.path;
    if (!path) return Promise.resolve();
    const text = JSON.stringify(this.all(), null, 1);
    // Saves run one after another, so an older state never lands after a newer one.
    this.saving = this.saving.then(async () => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(`${path}.tmp`, text, { mode: 0o600 });
      await rename(`${path}.tmp`, path);
    });
    return this.saving;
  }
}
