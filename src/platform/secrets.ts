/**
 * The secret store at run time (the Agent Definition Specification's `credentials_ref`): a compiled agent carries
 * only *where* each of its refs is read (`tenant.secrets`: `{env: VAR}` or `{file: PATH}`, from the
 * registry's tenant.md); the value is read here, inside an activity, when a request needs it, so it
 * never enters a workflow input, a result, a history or the store (secrets are injected as references, not values). A rotation is a
 * new value at the same place: nothing is recompiled.
 */
import * as fs from 'fs';
import { ApplicationFailure } from '@temporalio/common';
import type { SecretRef } from '../compiled/types';

/** The value of `ref`, or a non-retryable failure naming the ref and where it was looked for (never a value). */
export function readSecret(ref: string, secrets: Readonly<Record<string, SecretRef>> | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const at = secrets?.[ref];
  const fail = (why: string): never => {
    throw ApplicationFailure.nonRetryable(`credentials_ref \`${ref}\`: ${why}`, 'SecretUnavailable');
  };
  if (!at) return fail("this agent's compiled tenant block does not say where it is read (declare it under tenant.md `secrets` and recompile)");
  if (at.env) {
    const v = env[at.env];
    return v && v.trim() ? v.trim() : fail(`the environment variable ${at.env} is not set on this worker`);
  }
  if (at.file) {
    try {
      const v = fs.readFileSync(at.file, 'utf8').trim();
      return v || fail(`the file ${at.file} is empty`);
    } catch (e) {
      return fail(`the file ${at.file} cannot be read on this worker (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return fail('its tenant.md entry names neither `env` nor `file`');
}
