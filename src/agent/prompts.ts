import { readYamlFile } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import type { ToolSpec } from '../llm/types.ts';

/**
 * A prompt set: the system prompt (`{{tools}}` is replaced by the tool list when tools travel as text) and,
 * optionally, the task instruction's template (see the env's `renderInstruction` for its placeholders).
 */
export interface PromptSet {
  system: string;
  instruction?: string;
}

const SWE: PromptSet = {
  system: `You are an autonomous software engineer working in a Linux sandbox with no network access.
A repository with a bug is checked out for you. Your job: find the cause of the reported problem and fix it
in the source code so that the repository's tests pass, including tests that check the reported behaviour.

Work step by step, one tool call per reply: explore the code, reproduce the problem, edit the source, and
verify your fix. Do not modify test files; hidden tests will grade your change. When the fix is complete,
call finish.
{{tools}}`,
};

const DEBUG: PromptSet = {
  system: `You are a debugging assistant working in a Linux sandbox with no network access.
A program has a bug and its test file shows what it must do. The test file is read-only. Use the debugger
(pdb) to inspect the program while it runs: start it with a runner, set breakpoints inside function bodies,
continue, and print values. Then fix the program and call finish.
One tool call per reply.
{{tools}}`,
};

/**
 * For small models trained from scratch (the embedded default): every prompt token costs compute in each
 * training step, and such a model learns the call syntax from its SFT data, not from instructions.
 */
const MICRO: PromptSet = {
  system: 'Fix the bug with file_editor str_replace, then call finish.',
  instruction: '{{problem_statement}}',
};

const BUILTIN: Record<string, PromptSet> = { swe: SWE, debug: DEBUG, micro: MICRO };

/** A built-in prompt set by name, or one read from a YAML file with a `system` key. */
export function loadPromptSet(nameOrPath: string): PromptSet {
  const builtin = BUILTIN[nameOrPath];
  if (builtin) return builtin;
  if (!/\.ya?ml$/.test(nameOrPath)) {
    throw new ConfigError(
      `agent.prompt: unknown prompt set "${nameOrPath}"; use one of ${Object.keys(BUILTIN).join(', ')} or a YAML file`,
    );
  }
  const doc = readYamlFile(nameOrPath);
  if (typeof doc.system !== 'string') {
    throw new ConfigError(`prompt file ${nameOrPath}: expected a "system" string`);
  }
  if (doc.instruction !== undefined && typeof doc.instruction !== 'string') {
    throw new ConfigError(`prompt file ${nameOrPath}: "instruction" must be a string`);
  }
  return { system: doc.system, ...(doc.instruction ? { instruction: doc.instruction } : {}) };
}

/**
 * The system prompt. With function calling the server carries the tools, so `{{tools}}` vanishes; with XML
 * the prompt teaches the call syntax and lists every tool with its parameters.
 */
export function renderSystemPrompt(
  set: PromptSet,
  format: 'function_calling' | 'xml',
  tools: ToolSpec[],
): string {
  const toolText = format === 'xml' ? `\n${describeToolsAsXml(tools)}` : '';
  return set.system.replace('{{tools}}', toolText).trimEnd();
}

export function describeToolsAsXml(tools: ToolSpec[]): string {
  const lines = [
    'To call a tool, reply with exactly this format (one call per reply):',
    '<function=TOOL_NAME>',
    '<parameter=PARAMETER_NAME>VALUE</parameter>',
    '</function>',
    '',
    'Tools:',
  ];
  for (const t of tools) {
    lines.push(`- ${t.function.name}: ${t.function.description ?? ''}`.trimEnd());
    const props = (t.function.parameters.properties ?? {}) as Record<
      string,
      { type?: string; description?: string; enum?: unknown[] }
    >;
    const required = new Set((t.function.parameters.required ?? []) as string[]);
    for (const [name, p] of Object.entries(props)) {
      const choices = p.enum ? ` (one of: ${p.enum.join(', ')})` : '';
      const req = required.has(name) ? 'required' : 'optional';
      lines.push(`    ${name} (${p.type ?? 'string'}, ${req}): ${p.description ?? ''}${choices}`.trimEnd());
    }
  }
  return lines.join('\n');
}
