import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, errorMessage } from '../errors.ts';
import { ChatTemplate, type ModelFiles } from './chat-template.ts';

async function readText(path: string, required: boolean): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if (!required && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${path}: cannot read it (${errorMessage(e)})`, { cause: e });
  }
}

async function readJson(path: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  const text = await readText(path, required);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON: ${errorMessage(e)}`, { cause: e });
  }
}

/** Settles every read, then fails with the first failure in list order: the same error on every run. */
async function allInOrder<T extends readonly unknown[]>(
  reads: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const settled = await Promise.allSettled(reads);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Reads a local Hugging Face model directory's tokenizer and template files. */
export async function readModelFiles(modelDir: string): Promise<ModelFiles> {
  const [tokenizer, tokenizerConfig, chatTemplate, generationConfig, modelConfig] = await allInOrder([
    readJson(join(modelDir, 'tokenizer.json'), true),
    readJson(join(modelDir, 'tokenizer_config.json'), true),
    readText(join(modelDir, 'chat_template.jinja'), false),
    readJson(join(modelDir, 'generation_config.json'), false),
    readJson(join(modelDir, 'config.json'), false),
  ] as const);
  return {
    source: modelDir,
    tokenizer: tokenizer!,
    tokenizerConfig: tokenizerConfig!,
    chatTemplate,
    generationConfig,
    modelConfig,
  };
}

/**
 * The chat template and tokenizer of a local model directory (tokenizer.json, tokenizer_config.json,
 * and when present chat_template.jinja, generation_config.json, config.json).
 */
export async function loadChatTemplate(
  modelDir: string,
  templateKwargs: Record<string, unknown> = {},
): Promise<ChatTemplate> {
  return new ChatTemplate(await readModelFiles(modelDir), templateKwargs);
}
