/**
 * Embeddings for semantic and hybrid knowledge search and for semantic memory search, through
 * the `openai` client's `embeddings.create` against any OpenAI-compatible endpoint. Which
 * endpoint and model (provider details live in registry definitions, never the agent file):
 *  - the source's (or collection's) `backend.embeddings` block, the same shape as a model file's
 *    `openai` block: `{ base_url, model, api_key_env?, header_envs?, request_timeout_seconds? }`;
 *  - else the worker's LOOM_EMBEDDINGS_BASE_URL + LOOM_EMBEDDINGS_MODEL (+ LOOM_EMBEDDINGS_API_KEY_ENV,
 *    the NAME of the variable holding the key).
 * The client is built as the model provider builds its own (src/activities/openai.ts): its own
 * retries off (Temporal retries the activity), no ambient OPENAI_* settings, the key read from the
 * named env variable at call time and never put in a message (failures name the variable only).
 *
 * Vectors are cached in the shared store (records `embeddings`/`<model>@<endpoint>/<sha256 of the
 * text>`), so a corpus is embedded once per model whichever worker asks; only texts not cached
 * yet are sent, in batches of EMBED_BATCH.
 */
import OpenAI from 'openai';
import { ApplicationFailure } from '@temporalio/common';
import type { JsonObject, OpenAIModelConfig } from '../compiled/types';
import { sha256 } from '../compiled/canonical';
import type { BlobStore } from '../store/types';
import { openStore } from '../store/open';
import { redact, safeEndpoint } from './openai';

export type EmbeddingsConfig = OpenAIModelConfig;

export const EMBED_BATCH = 64;
const NO_KEY = 'agentloom-no-key';
const DEFAULT_TIMEOUT_S = 60;

/**
 * The embeddings endpoint a source or collection uses (`owner` names it in messages), or undefined
 * when neither its `backend.embeddings` nor LOOM_EMBEDDINGS_BASE_URL/LOOM_EMBEDDINGS_MODEL names one.
 * A malformed block is an error naming the field.
 */
export function embeddingsConfig(owner: string, backend: JsonObject, env: NodeJS.ProcessEnv = process.env): EmbeddingsConfig | undefined {
  const b = backend.embeddings;
  if (b !== undefined) {
    const o = (b ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || b === null || Array.isArray(b) || typeof o.base_url !== 'string' || !/^https?:\/\//.test(o.base_url) || typeof o.model !== 'string' || !o.model)
      throw new Error(`${owner}: backend.embeddings must be { base_url: "http(s)://…/v1", model: "<embeddings model>", api_key_env?: "ENV_NAME" }`);
    if (o.api_key_env !== undefined && (typeof o.api_key_env !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(o.api_key_env)))
      throw new Error(`${owner}: backend.embeddings.api_key_env must be the NAME of an environment variable (A-Z, 0-9, _), never the key`);
    return {
      base_url: o.base_url,
      model: o.model,
      ...(typeof o.api_key_env === 'string' ? { api_key_env: o.api_key_env } : {}),
      ...(o.header_envs && typeof o.header_envs === 'object' ? { header_envs: o.header_envs as Record<string, string> } : {}),
      ...(typeof o.request_timeout_seconds === 'number' ? { request_timeout_seconds: o.request_timeout_seconds } : {}),
    };
  }
  const base = env.LOOM_EMBEDDINGS_BASE_URL;
  const model = env.LOOM_EMBEDDINGS_MODEL;
  if (!base || !model) return undefined;
  return { base_url: base, model, ...(env.LOOM_EMBEDDINGS_API_KEY_ENV ? { api_key_env: env.LOOM_EMBEDDINGS_API_KEY_ENV } : {}) };
}

/** The embeddings endpoint, or a non-retryable failure saying how to name one. */
export function requireEmbeddings(owner: string, backend: JsonObject, why: string): EmbeddingsConfig {
  let cfg: EmbeddingsConfig | undefined;
  try {
    cfg = embeddingsConfig(owner, backend);
  } catch (e) {
    throw ApplicationFailure.nonRetryable((e as Error).message, 'EmbeddingsConfig');
  }
  if (!cfg) throw ApplicationFailure.nonRetryable(`${owner}: ${why} needs an embeddings endpoint: add backend.embeddings { base_url, model } to its definition, or set LOOM_EMBEDDINGS_BASE_URL and LOOM_EMBEDDINGS_MODEL on the worker`, 'EmbeddingsConfig');
  return cfg;
}

function client(cfg: EmbeddingsConfig): { client: OpenAI; key?: string } {
  let key: string | undefined;
  if (cfg.api_key_env) {
    key = process.env[cfg.api_key_env];
    if (!key) throw ApplicationFailure.nonRetryable(`embeddings: env ${cfg.api_key_env} (api_key_env) is not set in the worker's environment; set it to the API key for ${safeEndpoint(cfg.base_url)}`, 'EmbeddingsCredentialMissing');
  }
  const headers: Record<string, string | null> = {};
  for (const [name, envName] of Object.entries(cfg.header_envs ?? {})) {
    const v = process.env[envName];
    if (v) headers[name] = v;
  }
  if (!key) headers.Authorization = null;
  return {
    key,
    client: new OpenAI({ baseURL: cfg.base_url, apiKey: key ?? NO_KEY, organization: null, project: null, maxRetries: 0, timeout: (cfg.request_timeout_seconds ?? DEFAULT_TIMEOUT_S) * 1000, defaultHeaders: headers }),
  };
}

/** The endpoint's failure as a Temporal failure: 429/5xx/connection retryable, other 4xx not; the key never in the message. */
function failure(cfg: EmbeddingsConfig, e: unknown, key?: string): ApplicationFailure {
  if (e instanceof ApplicationFailure) return e;
  const where = `${safeEndpoint(cfg.base_url)}/embeddings (model ${cfg.model})`;
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const detail = redact(String((e.error as { message?: string } | undefined)?.message ?? e.message), key);
    return ApplicationFailure.create({ message: `embeddings request to ${where} failed: HTTP ${e.status}: ${detail}`, type: `EmbeddingsHttp${e.status}`, nonRetryable: !(e.status === 429 || e.status >= 500) });
  }
  return ApplicationFailure.create({ message: `embeddings request to ${where} failed: ${redact(e instanceof Error ? e.message : String(e), key)}`, type: 'EmbeddingsCallFailed', nonRetryable: false });
}

const cacheKey = (cfg: EmbeddingsConfig, text: string) => `${cfg.model}@${safeEndpoint(cfg.base_url)}/${sha256(text)}`;

/**
 * One vector per text (same order). Cached vectors come from the store; the rest are requested
 * (batches of EMBED_BATCH) and stored. `store`: the shared store (default: the process's, per
 * LOOM_STORE_URL/LOOM_STORE_DIR).
 */
export async function embedTexts(cfg: EmbeddingsConfig, texts: readonly string[], store: BlobStore = openStore(), signal?: AbortSignal): Promise<number[][]> {
  const out: (number[] | undefined)[] = [];
  // Cache reads EMBED_BATCH at a time: a large corpus must not open thousands of files at once.
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    out.push(...(await Promise.all(
      texts.slice(i, i + EMBED_BATCH).map(async (t) => {
        const raw = await store.getRecord('embeddings', cacheKey(cfg, t));
        if (!raw) return undefined;
        const v = JSON.parse(raw) as unknown;
        return Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined;
      }),
    )));
  }
  const missing = [...new Set(texts.filter((_, i) => !out[i]))];
  if (missing.length) {
    const { client: c, key } = client(cfg);
    const fresh = new Map<string, number[]>();
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH);
      let res: OpenAI.Embeddings.CreateEmbeddingResponse;
      try {
        res = await c.embeddings.create({ model: cfg.model, input: batch, encoding_format: 'float' }, { signal });
      } catch (e) {
        throw failure(cfg, e, key);
      }
      const data = [...(res.data ?? [])].sort((a, b) => a.index - b.index);
      if (data.length !== batch.length || data.some((d) => !Array.isArray(d.embedding)))
        throw failure(cfg, new Error(`the reply holds ${data.length} vector(s) for ${batch.length} input(s)`), key);
      for (const [j, d] of data.entries()) {
        fresh.set(batch[j], d.embedding);
        await store.setRecord('embeddings', cacheKey(cfg, batch[j]), JSON.stringify(d.embedding));
      }
    }
    for (const [i, t] of texts.entries()) out[i] ??= fresh.get(t);
  }
  return out as number[][];
}
