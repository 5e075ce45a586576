/**
 * The headers of an OTLP request for an agent's `observability.*.auth` (the Agent Definition Specification's "Collector
 * authentication"): none, or `Authorization: Bearer <secret>` with the secret read from the tenant's
 * secret store in the worker (src/platform/secrets.ts), never put in a payload. mtls is not
 * supported: a problem the caller logs, and nothing is sent.
 */
import { readSecret } from '../platform/secrets';
import type { SecretRef } from '../compiled/types';

export interface OtlpAuth {
  type: 'none' | 'bearer' | 'mtls';
  credentials_ref?: string;
}

export function otlpHeaders(
  auth: OtlpAuth,
  secrets: Readonly<Record<string, SecretRef>> | undefined,
  env?: NodeJS.ProcessEnv,
): { headers: Record<string, string> } | { problem: string } {
  if (auth.type === 'none') return { headers: {} };
  if (auth.type === 'mtls') return { problem: 'auth.type mtls is not supported by this worker' };
  if (!auth.credentials_ref) return { problem: 'auth.type bearer without credentials_ref' };
  try {
    return { headers: { Authorization: `Bearer ${readSecret(auth.credentials_ref, secrets, env)}` } };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}
