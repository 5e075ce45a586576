/**
 * What every native model provider does the same way: read its key from the env variable the
 * model file names (never an ambient vendor variable such as ANTHROPIC_API_KEY), read extra
 * headers from env variables, bound a call by `request_timeout_seconds` while still honouring the
 * activity's cancellation, and name its endpoint without credentials.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { CompiledModel, ProviderEndpointConfig } from '../../compiled/types';
import { DEFAULT_REQUEST_TIMEOUT_S, safeEndpoint } from '../openai';

/**
 * The value of the env variable `envName` (declared in the model file as `<provider>.<field>`), or
 * a non-retryable `ModelCredentialMissing` naming the variable when it is unset or empty.
 */
export function envCredential(model: CompiledModel, field: string, envName: string, endpoint: string): string {
  const v = process.env[envName];
  if (v) return v;
  throw ApplicationFailure.nonRetryable(
    `model ${model.model_id}: env ${envName} (${model.provider}.${field}) is not set in the worker's environment; set it to the credential for ${endpoint}`,
    'ModelCredentialMissing',
  );
}

/** Extra headers from env variables (`header_envs`); unset variables are skipped. */
export function envHeaders(headerEnvs: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, env] of Object.entries(headerEnvs ?? {})) {
    const v = process.env[env];
    if (v) out[name] = v;
  }
  return out;
}

/** The provider block of the model, or a non-retryable `ModelConfigError` when the bundle has none. */
export function blockOf<K extends 'anthropic' | 'google' | 'bedrock' | 'azure' | 'ollama'>(model: CompiledModel, provider: K): NonNullable<CompiledModel[K]> {
  const cfg = model[provider];
  if (!cfg) throw ApplicationFailure.nonRetryable(`model ${model.model_id} has provider ${provider} but no ${provider} block`, 'ModelConfigError');
  return cfg as NonNullable<CompiledModel[K]>;
}

/** `base_url` without credentials, or the vendor's default endpoint. */
export function endpointOf(cfg: ProviderEndpointConfig, fallback: string): string {
  return cfg.base_url ? safeEndpoint(cfg.base_url) : fallback;
}

/**
 * One signal for the provider call: aborted by the activity's cancellation or by the request
 * timeout; `timedOut()` tells which (a timeout is a retryable failure, a cancellation is not one).
 */
export function callSignal(cfg: ProviderEndpointConfig, outer: AbortSignal | undefined): { signal: AbortSignal; timedOut: () => boolean; timeoutS: number; done: () => void } {
  const timeoutS = cfg.request_timeout_seconds ?? DEFAULT_REQUEST_TIMEOUT_S;
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new Error(`no reply within ${timeoutS} s`));
  }, timeoutS * 1000);
  const onOuter = (): void => ctl.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: ctl.signal,
    timedOut: () => timedOut,
    timeoutS,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}
