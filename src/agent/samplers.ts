import type { Config } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import {
  EngineCompletionBackend,
  HttpCompletionBackend,
  loadChatTemplate,
  modelSourceFromEnv,
  OpenAIChatSampler,
  resolveModelDir,
  TokenSampler,
} from '../llm/index.ts';
import type { Sampler } from '../llm/types.ts';
import type { Task } from '../tasks/index.ts';
import { HfCausalLM } from '../train/hf/index.ts';
import { oraclePlan } from './policies/oracle-plan.ts';
import { PolicySampler } from './policies/policy-sampler.ts';

/** Gives each episode its own sampler, and names the policy or model for the trajectory. */
export interface SamplerFactory {
  policy: string;
  forTask(task: Task): Sampler;
}

/**
 * The sampler the config asks for: a built-in policy (oracle, noop, malformed), an OpenAI-compatible chat
 * server, or a completions server fed token ids rendered locally from the model's chat template. The
 * training engine's own sampler is wired by `sandgym train`.
 */
export async function createSamplerFactory(config: Config): Promise<SamplerFactory> {
  const llm = config.llm;
  const retry = { maxRetries: llm.max_retries };
  const timeoutMs = llm.request_timeout_s * 1000;
  const apiKey = llm.api_key ?? process.env.OPENAI_API_KEY;
  const providerOptions = llm.extra_body;
  switch (llm.backend) {
    case 'policy': {
      const format = config.agent.tool_call_format;
      return {
        policy: llm.policy,
        forTask(task) {
          if (llm.policy === 'malformed') return new PolicySampler('malformed', format);
          const patch = llm.policy === 'oracle' ? task.patch : '';
          if (llm.policy === 'oracle' && !patch) {
            throw new ConfigError(`task ${task.id} has no gold patch: the oracle policy cannot play it`);
          }
          return new PolicySampler(oraclePlan(patch, task.test.workdir, config.env.tools), format);
        },
      };
    }
    case 'openai': {
      const shared = new OpenAIChatSampler({
        baseUrl: llm.base_url,
        model: llm.model,
        timeoutMs,
        retry,
        providerOptions,
        ...(apiKey ? { apiKey } : {}),
      });
      return { policy: llm.model, forTask: () => shared.session() };
    }
    case 'tokens': {
      if (!llm.tokenizer) {
        throw new ConfigError('llm.backend=tokens needs llm.tokenizer: a model directory or Hugging Face id');
      }
      const modelDir = await resolveModelDir(llm.tokenizer, modelSourceFromEnv(process.env));
      const shared = new TokenSampler({
        template: await loadChatTemplate(modelDir, llm.chat_template_kwargs),
        backend: new HttpCompletionBackend({
          baseUrl: llm.base_url,
          model: llm.model,
          timeoutMs,
          retry,
          providerOptions,
          ...(apiKey ? { apiKey } : {}),
        }),
        maxTokensPerTurn: config.agent.max_tokens_per_turn,
        maxTrajectoryTokens: config.data.max_response_length,
      });
      return { policy: llm.model, forTask: () => shared.session() };
    }
    case 'hf': {
      // Sampled here, in float32 on the CPU: slow for real models, but every path works without a GPU.
      const modelDir = await resolveModelDir(llm.model, modelSourceFromEnv(process.env));
      const tokenizerDir = llm.tokenizer
        ? await resolveModelDir(llm.tokenizer, modelSourceFromEnv(process.env))
        : modelDir;
      const model = await HfCausalLM.load(modelDir);
      const shared = new TokenSampler({
        template: await loadChatTemplate(tokenizerDir, llm.chat_template_kwargs),
        backend: new EngineCompletionBackend(model),
        maxContextTokens: model.config.maxPositions,
        maxTokensPerTurn: config.agent.max_tokens_per_turn,
        maxTrajectoryTokens: config.data.max_response_length,
      });
      return { policy: llm.model, forTask: () => shared.session() };
    }
    case 'engine':
      throw new ConfigError(
        'llm.backend=engine samples from the training engine: it is available in "sandgym train"',
      );
  }
}
