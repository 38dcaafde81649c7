import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, errorMessage } from '../errors.ts';

/** Where a model named by its Hugging Face id comes from, as huggingface_hub's environment says. */
export interface ModelSourceOptions {
  /** Hub URL (`HF_ENDPOINT`); default https://huggingface.co. */
  endpoint?: string;
  /** Access token for gated or private models (`HF_TOKEN`). */
  token?: string;
  /** huggingface_hub's cache (`HF_HUB_CACHE`, else `HF_HOME/hub`, else ~/.cache/huggingface/hub). */
  cacheDir?: string;
  /** Branch, tag or commit; default `main`. */
  revision?: string;
  /** Read the cache only, never the network (`HF_HUB_OFFLINE=1`). */
  offline?: boolean;
  fetch?: typeof fetch;
}

/** The files templating and tokenizing need; the first two must exist. */
export const TOKENIZER_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'chat_template.jinja',
  'generation_config.json',
  'config.json',
] as const;

const HUB_ID = /^[\w.-]+\/[\w.-]+$/;
const COMMIT = /^[0-9a-f]{40}$/;

/** huggingface_hub's settings from an environment; the caller passes `process.env`. */
export function modelSourceFromEnv(env: Readonly<Record<string, string | undefined>>): ModelSourceOptions {
  const home = env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
  return {
    cacheDir: env.HF_HUB_CACHE || join(home, 'hub'),
    ...(env.HF_ENDPOINT ? { endpoint: env.HF_ENDPOINT } : {}),
    ...(env.HF_TOKEN ? { token: env.HF_TOKEN } : {}),
    ...(['1', 'true', 'yes', 'on'].includes((env.HF_HUB_OFFLINE ?? '').toLowerCase())
      ? { offline: true }
      : {}),
  };
}

/**
 * A directory holding a model's tokenizer files: `model` itself when it is a directory, else the
 * snapshot of the Hugging Face model `owner/name` in huggingface_hub's cache, shared with Python tools.
 * A snapshot already cached (by sandgym, `huggingface-cli download` or transformers) is used without
 * the network; otherwise only the tokenizer files are downloaded (weights never are).
 */
export async function resolveModelDir(model: string, options: ModelSourceOptions = {}): Promise<string> {
  if (await isDirectory(model)) return resolve(model);
  if (!HUB_ID.test(model) || model.includes('..')) {
    throw new ConfigError(`model "${model}": not a directory, and not a Hugging Face id like Qwen/Qwen3-8B`);
  }
  const revision = options.revision ?? 'main';
  if (revision.split('/').some((part) => part === '..' || part === '')) {
    throw new ConfigError(`model ${model}: revision "${revision}" is not a branch, tag or commit`);
  }
  const cacheDir = options.cacheDir ?? modelSourceFromEnv(process.env).cacheDir!;
  const repoDir = join(cacheDir, `models--${model.replace('/', '--')}`);
  const cached = await cachedSnapshot(repoDir, revision);
  if (cached) return cached;
  if (options.offline) {
    throw new ConfigError(
      `model ${model}@${revision}: not in the Hugging Face cache ${cacheDir} and HF_HUB_OFFLINE is set; ` +
        `download its tokenizer first (huggingface-cli download ${model} ${TOKENIZER_FILES.join(' ')}) or pass a directory`,
    );
  }
  return downloadTokenizerFiles(model, revision, cacheDir, repoDir, options);
}

/** `snapshots/<commit>` when the revision's commit is known and its tokenizer files are there. */
async function cachedSnapshot(repoDir: string, revision: string): Promise<string | undefined> {
  let commit = revision;
  if (!COMMIT.test(revision)) {
    try {
      commit = (await readFile(join(repoDir, 'refs', revision), 'utf8')).trim();
    } catch {
      return undefined;
    }
  }
  const snapshot = join(repoDir, 'snapshots', commit);
  const required = await Promise.all(TOKENIZER_FILES.slice(0, 2).map((f) => exists(join(snapshot, f))));
  return required.every(Boolean) ? snapshot : undefined;
}

async function downloadTokenizerFiles(
  model: string,
  revision: string,
  cacheDir: string,
  repoDir: string,
  options: ModelSourceOptions,
): Promise<string> {
  // Loaded only to download: it adds ~100 ms to every command that merely imports src/llm.
  const { downloadFileToCacheDir, modelInfo } = await import('@huggingface/hub');
  const hub = {
    repo: { type: 'model' as const, name: model },
    ...(options.endpoint ? { hubUrl: options.endpoint.replace(/\/+$/, '') } : {}),
    ...(options.token ? { accessToken: options.token } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const where = `${options.endpoint ?? 'https://huggingface.co'}`;
  let commit: string;
  let files: string[];
  try {
    const info = await modelInfo({ ...hub, name: model, revision, additionalFields: ['sha', 'filePaths'] });
    commit = info.sha;
    files = info.filePaths;
  } catch (e) {
    throw new ConfigError(
      `model ${model}@${revision}: cannot read it from ${where} (${errorMessage(e)}); ` +
        'check the id, set HF_TOKEN for a gated model, HF_ENDPOINT for a mirror, or pass a local directory',
      { cause: e },
    );
  }
  if (typeof commit !== 'string' || !COMMIT.test(commit)) {
    throw new ConfigError(`model ${model}@${revision}: ${where} answered without a commit id`);
  }
  const missing = TOKENIZER_FILES.slice(0, 2).filter((f) => !files.includes(f));
  if (missing.length) {
    throw new ConfigError(
      `model ${model}@${revision}: it has no ${missing.join(' or ')}, so it cannot be tokenized here`,
    );
  }
  for (const path of TOKENIZER_FILES.filter((f) => files.includes(f))) {
    try {
      // A commit as the revision puts every file in one snapshot folder, as huggingface_hub does.
      await downloadFileToCacheDir({ ...hub, path, revision: commit, cacheDir });
    } catch (e) {
      throw new ConfigError(
        `model ${model}@${revision}: downloading ${path} from ${where} failed: ${errorMessage(e)}`,
        {
          cause: e,
        },
      );
    }
  }
  if (revision !== commit) {
    const ref = join(repoDir, 'refs', revision);
    await mkdir(dirname(ref), { recursive: true });
    await writeFile(ref, commit);
  }
  return join(repoDir, 'snapshots', commit);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
