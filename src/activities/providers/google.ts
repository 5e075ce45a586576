/**
 * The `google` model provider: the Gemini API through `@ai-sdk/google` (`x-goog-api-key`),
 * default endpoint https://generativelanguage.googleapis.com/v1beta. Structured output is
 * Gemini's response schema (`responseMimeType: application/json`), sent on turns that offer no
 * tools: Gemini's JSON response mode and function calling do not combine on every model.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import type { Provider } from '../provider';
import { aiSdkProvider } from './ai-sdk';
import { blockOf, endpointOf, envCredential, envHeaders } from './common';

export const DEFAULT_GOOGLE_URL = 'https://generativelanguage.googleapis.com/v1beta';

export const googleProvider: Provider = aiSdkProvider(async (req) => {
  const cfg = blockOf(req.model, 'google');
  const url = endpointOf(cfg, DEFAULT_GOOGLE_URL);
  const key = cfg.api_key_env ? envCredential(req.model, 'api_key_env', cfg.api_key_env, url) : '';
  const client = createGoogleGenerativeAI({ baseURL: cfg.base_url ?? DEFAULT_GOOGLE_URL, apiKey: key, headers: envHeaders(cfg.header_envs) });
  return { model: client.languageModel(cfg.model), endpoint: `google ${url} (model ${cfg.model})`, credentialEnv: cfg.api_key_env, secrets: key ? [key] : [], structuredWithTools: false };
});
