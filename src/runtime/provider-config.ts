/**
 * A model's provider block, read the same way by the workflow (the model activity's timeout) and
 * the activities (the call itself): the block named like the provider (`openai`, `anthropic`,
 * `google`, `bedrock`, `azure`, `ollama`). Pure: no I/O, no Temporal.
 */
import type { CompiledModel, ProviderEndpointConfig } from '../compiled/types';

/** The endpoint fields of the model's provider block, or undefined for `scripted` (or a missing block). */
export function providerBlock(model: Pick<CompiledModel, 'provider'> & Partial<CompiledModel>): ProviderEndpointConfig | undefined {
  if (model.provider === 'scripted') return undefined;
  return model[model.provider];
}

/** The provider block's `request_timeout_seconds`, when it sets one. */
export function requestTimeoutSeconds(model: Pick<CompiledModel, 'provider'> & Partial<CompiledModel>): number | undefined {
  return providerBlock(model)?.request_timeout_seconds;
}
