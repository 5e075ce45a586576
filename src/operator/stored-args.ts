/**
 * What `loom status`, `loom inbox` and the run progress show for a pending approval of an
 * ephemeral run: its history holds only a reference to the call's arguments, so
 * the CLI reads them from the store (the tool's sensitive_fields redacted, as the run redacts the
 * arguments it reports); once the run has ended and deleted them, it says so.
 */
import type { JsonObject } from '../compiled/types';
import type { RunStatus } from '../shared/contract';
import { redactArgs } from '../governance/sensitive';
import { storedArgsRef, type StoredArgs } from '../runtime/ephemeral-args';

export const ARGS_GONE = { '(arguments)': 'no longer in the store (the ephemeral run has ended)' };

/** `items` with every stored-arguments reference replaced by the arguments it names. */
export async function withStoredArgs<T extends { arguments?: JsonObject }>(items: T[]): Promise<T[]> {
  if (!items.some((i) => storedArgsRef(i.arguments))) return items;
  const { openBlobStore } = await import('../activities/blob-store');
  const store = openBlobStore();
  return Promise.all(
    items.map(async (i) => {
      const ref = storedArgsRef(i.arguments);
      if (!ref) return i;
      if (!(await store.has(ref))) return { ...i, arguments: ARGS_GONE } as T;
      const s = await store.getJson<StoredArgs>(ref);
      return { ...i, arguments: redactArgs(s.args, s.sensitive_fields ?? []) } as T;
    }),
  );
}

/** A run status with its pending calls' arguments read from the store (`loom status`, MCP get_run). */
export async function statusWithStoredArgs(status: RunStatus): Promise<RunStatus> {
  return {
    ...status,
    ...(status.pending_approvals?.length ? { pending_approvals: await withStoredArgs(status.pending_approvals) } : {}),
    ...(status.pending_decisions?.length ? { pending_decisions: await withStoredArgs(status.pending_decisions) } : {}),
  };
}
