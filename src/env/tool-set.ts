import { ConfigError } from '../errors.ts';
import { ExecuteBash } from './tools/execute-bash.ts';
import { FileEditor } from './tools/file-editor.ts';
import { Finish } from './tools/finish.ts';
import { Pdb } from './tools/pdb.ts';
import { Search } from './tools/search.ts';
import type { Tool } from './types.ts';

export interface ToolSetOptions {
  /** `execute_bash`'s refused commands (leading words); default R2E-Gym's list. */
  blockedCommands?: readonly string[];
}

const FACTORIES: Readonly<Record<string, (o: ToolSetOptions) => Tool>> = {
  file_editor: () => new FileEditor(),
  search: () => new Search(),
  execute_bash: (o) => new ExecuteBash(o.blockedCommands ? { blockedCommands: o.blockedCommands } : {}),
  pdb: () => new Pdb(),
  finish: () => new Finish(),
};

/** The names `env.tools` accepts. */
export const TOOL_NAMES: readonly string[] = Object.keys(FACTORIES);

/**
 * Fresh tools for one episode, in the order named (`env.tools`; SWE-PDB's set is
 * `[file_editor, search, pdb, finish]`, pdb on and bash off). Each episode gets its own instances: the
 * editor's undo history and the pdb session belong to one episode.
 */
export function createToolSet(names: readonly string[], options: ToolSetOptions = {}): Tool[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const factory = FACTORIES[name];
    if (!factory)
      throw new ConfigError(`env.tools: unknown tool "${name}"; valid tools: ${TOOL_NAMES.join(', ')}`);
    if (seen.has(name)) throw new ConfigError(`env.tools: "${name}" is listed twice`);
    seen.add(name);
    return factory(options);
  });
}
