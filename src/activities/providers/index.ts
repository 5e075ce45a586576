/**
 * The native model providers by the name a model file gives (`provider: anthropic`, …), each
 * loaded on its first call (a dynamic import), so a worker or CLI that never calls one does not
 * load its vendor package. `openai` (src/activities/openai.ts) and `scripted` (model.ts) are
 * registered beside these by createActivities.
 */
import type { Provider } from '../provider';

function lazy(load: () => Promise<Provider>): Provider {
  let p: Promise<Provider> | undefined;
  return async (req) => {
    p ??= load();
    return (await p)(req);
  };
}

export function nativeProviders(): Record<'anthropic' | 'google' | 'bedrock' | 'azure' | 'ollama', Provider> {
  return {
    anthropic: lazy(async () => (await import('./anthropic')).anthropicProvider),
    google: lazy(async () => (await import('./google')).googleProvider),
    bedrock: lazy(async () => (await import('./bedrock')).bedrockProvider),
    azure: lazy(async () => (await import('./azure')).azureProvider),
    ollama: lazy(async () => (await import('./ollama')).ollamaProvider),
  };
}
