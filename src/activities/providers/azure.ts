/**
 * The `azure` model provider: Azure OpenAI chat completions of one deployment through
 * `@ai-sdk/azure` (`api-key`). Without `api_version` (or with `v1`) calls go to the v1 API
 * (`{base}/v1/chat/completions`, the deployment as the model); with a dated `api_version` they go
 * to the deployment's URL (`{base}/deployments/{deployment}/chat/completions?api-version=…`).
 * Structured output is a JSON-schema response format, not strict (our schemas need not list every
 * property as required). `runtime.reasoning_effort` and `supports_parallel_tool_calls: false` are
 * sent as the `openai` provider sends them.
 */
import { createAzure } from '@ai-sdk/azure';
import type { Provider } from '../provider';
import { aiSdkProvider } from './ai-sdk';
import { blockOf, envCredential, envHeaders } from './common';
import { safeEndpoint } from '../openai';

export const azureProvider: Provider = aiSdkProvider(async (req) => {
  const cfg = blockOf(req.model, 'azure');
  const base = cfg.base_url ?? `https://${cfg.resource_name ?? ''}.openai.azure.com/openai`;
  const url = safeEndpoint(base);
  const key = cfg.api_key_env ? envCredential(req.model, 'api_key_env', cfg.api_key_env, url) : '';
  const dated = cfg.api_version !== undefined && cfg.api_version !== 'v1';
  const client = createAzure({ baseURL: base, apiKey: key, headers: envHeaders(cfg.header_envs), ...(cfg.api_version ? { apiVersion: cfg.api_version } : {}), useDeploymentBasedUrls: dated });
  return {
    model: client.chat(cfg.deployment),
    endpoint: `azure ${url} (deployment ${cfg.deployment})`,
    credentialEnv: cfg.api_key_env,
    secrets: key ? [key] : [],
    // As the openai provider: parallel_tool_calls off when the model says so, and reasoning_effort.
    providerOptions: {
      openai: {
        strictJsonSchema: false,
        ...(req.model.supports_parallel_tool_calls === false ? { parallelToolCalls: false } : {}),
        ...(req.prefs.reasoning_effort ? { reasoningEffort: req.prefs.reasoning_effort } : {}),
      },
    },
  };
});
