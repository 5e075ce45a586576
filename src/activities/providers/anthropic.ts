/**
 * The `anthropic` model provider: the Messages API through `@ai-sdk/anthropic` (`x-api-key`,
 * `anthropic-version`), default endpoint https://api.anthropic.com/v1. Structured output uses the
 * package's mechanism: native output format on models that have it, a forced `json` tool otherwise.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import type { Provider } from '../provider';
import { aiSdkProvider } from './ai-sdk';
import { blockOf, endpointOf, envCredential, envHeaders } from './common';

export const DEFAULT_ANTHROPIC_URL = 'https://api.anthropic.com/v1';

export const anthropicProvider: Provider = aiSdkProvider(async (req) => {
  const cfg = blockOf(req.model, 'anthropic');
  const url = endpointOf(cfg, DEFAULT_ANTHROPIC_URL);
  const key = cfg.api_key_env ? envCredential(req.model, 'api_key_env', cfg.api_key_env, url) : '';
  const client = createAnthropic({ baseURL: cfg.base_url ?? DEFAULT_ANTHROPIC_URL, apiKey: key, headers: envHeaders(cfg.header_envs) });
  return {
    model: client.messages(cfg.model),
    endpoint: `anthropic ${url} (model ${cfg.model})`,
    credentialEnv: cfg.api_key_env,
    secrets: key ? [key] : [],
    // supports_parallel_tool_calls: false, as the openai provider sends parallel_tool_calls: false.
    ...(req.model.supports_parallel_tool_calls === false ? { providerOptions: { anthropic: { disableParallelToolUse: true } } } : {}),
  };
});
