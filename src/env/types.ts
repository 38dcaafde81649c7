import type { ToolSpec } from '../llm/types.ts';
import type { Sandbox } from '../sandbox/index.ts';

/** A tool call as the agent loop hands it over: arguments parsed (an object) or as JSON text. */
export interface ToolCallInput {
  name: string;
  arguments: unknown;
}

/** What one step gives back to the agent loop. */
export interface StepResult {
  /** The text the model sees next: the tool's output, or a correction of a malformed call. */
  observation: string;
  /** The episode is over: the agent submitted (budgets are the loop's business). */
  done: boolean;
  /** The agent called finish/submit. */
  submitted: boolean;
  /** The call was malformed (unknown tool, bad arguments) and nothing ran. Kept for statistics. */
  invalid: boolean;
}

/** A change one tool made to a file; `null` content means the file did not exist (before) or was removed. */
export interface FileEdit {
  /** Absolute path inside the sandbox. */
  path: string;
  before: string | null;
  after: string | null;
}

/** What a tool's `run` gives back. */
export interface ToolResult {
  observation: string;
  /** Ends the episode as a submit. */
  submitted?: boolean;
  /** A file this call changed, so that other tools (pdb) can react. */
  edit?: FileEdit;
}

/** What a tool may use while it runs one call. */
export interface ToolContext {
  readonly sandbox: Sandbox;
  /** The task's working directory (`/testbed`); relative paths resolve against it. */
  readonly repoDir: string;
  /** Milliseconds left before this step's deadline; every exec gets at most this much. */
  remainingMs(): number;
  /** Shell lines that prepare the task's environment (conda activation); run before agent commands. */
  readonly setup: string;
  /** Absolute paths the agent may read but not change (a debug task's test file). */
  readonly readOnlyPaths: ReadonlySet<string>;
}

/**
 * One tool of the environment. Arguments reach `run` already checked against `spec`'s JSON schema (and
 * coerced from strings where the schema asks for numbers), so `run` deals with meaning, not shape. An
 * agent's mistake is an observation; only an infrastructure fault (`SandboxError`) may escape.
 */
export interface Tool {
  readonly spec: ToolSpec;
  /** Other names the model may call this tool by (R2E-Gym's `submit` for `finish`). */
  readonly aliases?: readonly string[];
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
  /** Told about every file edit made through the environment's tools. */
  fileEdited?(edit: FileEdit): void;
  /** Ends what the tool keeps alive (a pdb session). */
  close?(): Promise<void>;
}
