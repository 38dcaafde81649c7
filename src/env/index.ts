/**
 * One episode's environment: preparing a task's sandbox (tests hidden, future git history scrubbed),
 * `SWEEnv` with its tools (file_editor, search, execute_bash, pdb, finish/submit), the agent's patch, and
 * the reward through the harness on a fresh sandbox.
 */
export { agentPatch, graderOwnedPaths, MAX_PATCH_BYTES } from './agent-patch.ts';
export { type ArgumentCheck, checkArguments, describeParameters } from './check-arguments.ts';
export { type GradePatchOptions, gradePatch, type PatchGrade } from './grade-patch.ts';
export { type PrepareOptions, prepareSandbox, R2E_HIDDEN_PATHS } from './prepare.ts';
export { INSTRUCTION_PLACEHOLDERS, renderInstruction } from './render-instruction.ts';
export { type ScrubOutcome, scrubGitHistory } from './scrub-git-history.ts';
export { type EnvConfig, type EpisodeGrade, SWEEnv, type SWEEnvOptions } from './swe-env.ts';
export { createToolSet, TOOL_NAMES, type ToolSetOptions } from './tool-set.ts';
export { R2E_GYM_BLOCKLIST } from './tools/command-blocklist.ts';
export { truncateObservation } from './truncate-observation.ts';
export type { FileEdit, StepResult, Tool, ToolCallInput, ToolContext, ToolResult } from './types.ts';
