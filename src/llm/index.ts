/**
 * Samplers: how the agent loop gets assistant turns from an LLM.
 *
 * - `OpenAIChatSampler`: any OpenAI-compatible `/chat/completions` server; the server templates.
 * - `TokenSampler`: the chat template applied here (`loadChatTemplate`), token ids sent to a
 *   `CompletionBackend` (`HttpCompletionBackend` for vLLM/SGLang, `EngineCompletionBackend` for the
 *   training engine); every turn's prompt extends the last prompt plus completion by construction.
 * - `ScriptedServer`: an OpenAI-compatible server on loopback that plays a scripted policy, faults
 *   included, so the HTTP path is tested for real.
 */

export { ChatTemplate, type ModelFiles, type RenderOptions } from './chat-template.ts';
export type { CompletionBackend, CompletionOutput, CompletionParams } from './completion-backend.ts';
export { EngineCompletionBackend, type SamplingEngine } from './engine-completion-backend.ts';
export { HttpCompletionBackend, type HttpCompletionBackendOptions } from './http-completion-backend.ts';
export { isLlmApiError, isRetryableStatus, LlmApiError, type LlmApiErrorKind } from './llm-api-error.ts';
export { loadChatTemplate, readModelFiles } from './load-chat-template.ts';
export { mapFinishReason } from './map-finish-reason.ts';
export {
  type ModelSourceOptions,
  modelSourceFromEnv,
  resolveModelDir,
  TOKENIZER_FILES,
} from './model-source.ts';
export { OpenAIChatSampler, type OpenAIChatSamplerOptions } from './openai-chat.ts';
export { type ParsedToolCalls, type ParseToolCallsOptions, parseToolCalls } from './parse-tool-calls.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
export {
  isScriptedFault,
  type ScriptedFault,
  type ScriptedPolicy,
  type ScriptedReply,
  type ScriptedRequest,
  samplerPolicy,
  sequencePolicy,
} from './scripted-policy.ts';
export type { ScriptedTokenizer } from './scripted-replies.ts';
export { ScriptedServer, type ScriptedServerOptions } from './scripted-server.ts';
export { type SplitReasoning, splitReasoning } from './split-reasoning.ts';
export { TokenSampler, type TokenSamplerOptions } from './token-sampler.ts';
export * from './types.ts';
