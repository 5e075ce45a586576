/**
 * The `bedrock` model provider: the Bedrock Converse API through `@ai-sdk/amazon-bedrock`, in the
 * block's `region` (default endpoint https://bedrock-runtime.<region>.amazonaws.com). Requests are
 * signed with SigV4 from the access key env variables the block names, or carry a Bedrock API key
 * (`api_key_env`, a bearer token). Ambient AWS_* variables are never read: the credentials come
 * only from the variables the model file names.
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { ApplicationFailure } from '@temporalio/common';
import type { Provider } from '../provider';
import { aiSdkProvider } from './ai-sdk';
import { blockOf, endpointOf, envCredential, envHeaders } from './common';

export const bedrockProvider: Provider = aiSdkProvider(async (req) => {
  const cfg = blockOf(req.model, 'bedrock');
  const url = endpointOf(cfg, `https://bedrock-runtime.${cfg.region}.amazonaws.com`);
  const headers = envHeaders(cfg.header_envs);
  const at = { endpoint: `bedrock ${url} (model ${cfg.model})` };
  if (cfg.api_key_env) {
    const key = envCredential(req.model, 'api_key_env', cfg.api_key_env, url);
    const client = createAmazonBedrock({ region: cfg.region, baseURL: cfg.base_url, apiKey: key, headers });
    return { model: client.languageModel(cfg.model), ...at, credentialEnv: cfg.api_key_env, secrets: [key] };
  }
  if (!cfg.access_key_id_env || !cfg.secret_access_key_env) {
    throw ApplicationFailure.nonRetryable(`model ${req.model.model_id}: bedrock needs api_key_env, or access_key_id_env and secret_access_key_env`, 'ModelConfigError');
  }
  const accessKeyId = envCredential(req.model, 'access_key_id_env', cfg.access_key_id_env, url);
  const secretAccessKey = envCredential(req.model, 'secret_access_key_env', cfg.secret_access_key_env, url);
  const sessionToken = cfg.session_token_env ? envCredential(req.model, 'session_token_env', cfg.session_token_env, url) : undefined;
  const client = createAmazonBedrock({
    region: cfg.region,
    baseURL: cfg.base_url,
    // An empty key turns the package's AWS_BEARER_TOKEN_BEDROCK lookup off; the provider keeps it off AWS_* too.
    apiKey: '',
    credentialProvider: async () => ({ accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }),
    headers,
  });
  return {
    model: client.languageModel(cfg.model),
    ...at,
    credentialEnv: `${cfg.access_key_id_env}/${cfg.secret_access_key_env}`,
    secrets: [accessKeyId, secretAccessKey, ...(sessionToken ? [sessionToken] : [])],
  };
});
