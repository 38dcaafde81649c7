import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { ConfigError, errorMessage } from '../errors.ts';
import type { ChatMessage, ToolSpec } from './types.ts';

/** The files of a Hugging Face model directory that templating needs, already parsed. */
export interface ModelFiles {
  /** Where they came from, for messages. */
  source: string;
  /** `tokenizer.json`. */
  tokenizer: Record<string, unknown>;
  /** `tokenizer_config.json`: special tokens, and the chat template unless `chatTemplate` is given. */
  tokenizerConfig: Record<string, unknown>;
  /** `chat_template.jinja`, which newer models ship instead of a `chat_template` key. */
  chatTemplate?: string;
  /** `generation_config.json`: more end-of-turn ids (`eos_token_id`). */
  generationConfig?: Record<string, unknown>;
  /** `config.json`: the context window (`max_position_embeddings`). */
  modelConfig?: Record<string, unknown>;
}

export interface RenderOptions {
  tools?: ToolSpec[];
  /** End with the header that opens the assistant's next turn. */
  addGenerationPrompt: boolean;
}

/** `model_max_length` values this large are transformers' "no limit" placeholder. */
const NO_LIMIT = 1e12;

/**
 * A model's chat template and tokenizer, as transformers applies them (`apply_chat_template`):
 * renders messages to text with the model's own Jinja template, encodes text to ids without adding
 * special tokens (the template writes them), decodes ids back to exact text.
 */
export class ChatTemplate {
  /** Ids that end an assistant turn: `eos_token` plus `generation_config.json`'s `eos_token_id`. */
  readonly eosTokenIds: number[];
  /** The context window from `config.json` or `model_max_length`, when the files say. */
  readonly maxContextTokens: number | undefined;
  readonly source: string;
  private readonly tokenizer: Tokenizer;
  private readonly templates: Map<string, Template>;
  private readonly specialTokens: Record<string, string>;

  /**
   * @param templateKwargs extra template variables, e.g. `{ enable_thinking: false }` for Qwen3.
   */
  constructor(
    files: ModelFiles,
    private readonly templateKwargs: Record<string, unknown> = {},
  ) {
    this.source = files.source;
    try {
      this.tokenizer = new Tokenizer(files.tokenizer, files.tokenizerConfig);
    } catch (e) {
      throw new ConfigError(`${files.source}: tokenizer.json cannot be loaded: ${errorMessage(e)}`, {
        cause: e,
      });
    }
    this.templates = compileTemplates(files);
    this.specialTokens = specialTokenStrings(files.tokenizerConfig);
    this.eosTokenIds = this.findEosIds(files);
    this.maxContextTokens = contextWindow(files);
  }

  /** The conversation as the model reads it. */
  render(messages: ChatMessage[], options: RenderOptions): string {
    const tools = options.tools?.length ? options.tools : undefined;
    const template = (tools && this.templates.get('tool_use')) || this.templates.get('default')!;
    try {
      return template.render({
        ...this.specialTokens,
        ...this.templateKwargs,
        messages: messages.map(toTemplateMessage),
        tools,
        add_generation_prompt: options.addGenerationPrompt,
      });
    } catch (e) {
      throw new ConfigError(
        `${this.source}: the chat template refused the conversation: ${errorMessage(e)}`,
        {
          cause: e,
        },
      );
    }
  }

  /** Ids of `text`; special tokens written in it become their single ids, none are added. */
  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /**
   * Exact text of `ids`. Special tokens are dropped unless `keepSpecialTokens`; tokenization spaces
   * are never "cleaned up", since tool-call arguments must arrive byte for byte.
   */
  decode(ids: number[], options: { keepSpecialTokens?: boolean } = {}): string {
    if (ids.length === 0) return '';
    return this.tokenizer.decode(ids, {
      skip_special_tokens: !options.keepSpecialTokens,
      clean_up_tokenization_spaces: false,
    });
  }

  private findEosIds(files: ModelFiles): number[] {
    const ids = new Set<number>();
    const eosText = this.specialTokens.eos_token;
    if (eosText) {
      const id = this.tokenizer.token_to_id(eosText);
      if (id === undefined)
        throw new ConfigError(`${files.source}: eos_token "${eosText}" is not in the vocabulary`);
      ids.add(id);
    }
    const fromGeneration = files.generationConfig?.eos_token_id;
    for (const id of Array.isArray(fromGeneration) ? fromGeneration : [fromGeneration]) {
      if (Number.isInteger(id)) ids.add(id as number);
    }
    if (ids.size === 0) {
      throw new ConfigError(
        `${files.source}: no end-of-turn token; tokenizer_config.json has no eos_token and generation_config.json no eos_token_id`,
      );
    }
    return [...ids];
  }
}

/** Named templates (`default`, `tool_use`, …) from `chat_template.jinja` or `chat_template`. */
function compileTemplates(files: ModelFiles): Map<string, Template> {
  const raw = files.chatTemplate ?? files.tokenizerConfig.chat_template;
  const named = new Map<string, string>();
  if (typeof raw === 'string') named.set('default', raw);
  else if (Array.isArray(raw)) {
    for (const entry of raw as { name?: unknown; template?: unknown }[]) {
      if (typeof entry?.name === 'string' && typeof entry.template === 'string')
        named.set(entry.name, entry.template);
    }
  }
  if (!named.has('default')) {
    throw new ConfigError(
      `${files.source}: no chat template; expected a chat_template.jinja file or a "chat_template" key in tokenizer_config.json`,
    );
  }
  const compiled = new Map<string, Template>();
  for (const [name, text] of named) {
    try {
      compiled.set(name, new Template(text));
    } catch (e) {
      throw new ConfigError(`${files.source}: chat template "${name}" does not parse: ${errorMessage(e)}`, {
        cause: e,
      });
    }
  }
  return compiled;
}

/** `bos_token`, `eos_token`… as the strings templates print (configs write them as text or as objects). */
function specialTokenStrings(config: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token', 'pad_token', 'unk_token']) {
    const value = config[key];
    const text = typeof value === 'string' ? value : (value as { content?: unknown } | null)?.content;
    if (typeof text === 'string') out[key] = text;
  }
  return out;
}

function contextWindow(files: ModelFiles): number | undefined {
  const fromModel = files.modelConfig?.max_position_embeddings;
  if (Number.isInteger(fromModel) && (fromModel as number) > 0) return fromModel as number;
  const fromTokenizer = files.tokenizerConfig.model_max_length;
  if (
    Number.isInteger(fromTokenizer) &&
    (fromTokenizer as number) > 0 &&
    (fromTokenizer as number) < NO_LIMIT
  ) {
    return fromTokenizer as number;
  }
  return undefined;
}

/**
 * A message as templates expect it: tool-call arguments as objects (templates print them with
 * `tojson`, as vLLM and transformers hand them over), optional fields only when set.
 */
function toTemplateMessage(m: ChatMessage): Record<string, unknown> {
  return {
    role: m.role,
    content: m.content,
    ...(m.reasoning_content !== undefined ? { reasoning_content: m.reasoning_content } : {}),
    ...(m.tool_calls?.length
      ? {
          tool_calls: m.tool_calls.map((c) => ({
            id: c.id,
            type: c.type,
            function: { name: c.function.name, arguments: parseArguments(c.function.arguments) },
          })),
        }
      : {}),
    ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
    ...(m.name !== undefined ? { name: m.name } : {}),
  };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
