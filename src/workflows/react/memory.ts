/**
 * The Agent Definition Specification's memory in a single agf.react run (`loom run`/`loom start`), with the
 * semantics a chat session gives each message (src/workflows/session.ts), from the same activities
 * and pure helpers (src/activities/memory.ts, src/runtime/memory.ts):
 *
 *   run start  each read collection is searched with the run's input, `{actorId}`/`{sessionId}`
 *              substituted; what matched joins the first model turn as a `# Memory` message
 *              (a stored message: the history holds its ref)
 *   run end    each write collection with `writeback.enabled` gets the answer per its strategy;
 *              a collection with `approval_required` waits durably for approve/reject under call
 *              id `memory-1-<collection>` (the update `loom approve`/`loom reject` send), and an
 *              unanswered one is not written once the run's approval timeout passes; a run
 *              outside a `--session` is its own session, so `scope: session` collections are
 *              emptied as it ends. An escalated run's answer (a person's or another
 *              agent's) is not the model's and is not written back
 *
 * Only root runs: a session reads and writes for its messages itself, and orchestration members
 * are not single runs. Decided once per run chain, behind patch
 * `memory-react` (runs recorded before it replay without these commands), and carried across
 * continue-as-new in ReactState.memory.
 */
import { patched } from '@temporalio/workflow';
import type { AgentRunResult, BlobRef } from '../../shared/contract';
import { memoryUse, writebackApproval, writebackCallId, WritebackRequest, WRITEBACK_TOOL } from '../../runtime/memory';
import { awaitWritebackDecision } from '../shell/memory-writeback';
import type { ReactRun } from './context';
import { noteAudit } from './governance';
import { PATCHES } from '../patches';

/** A single run is message 1 of its own session. */
const RUN_MESSAGE = 1;

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v ?? null);
}

function scope(rx: ReactRun) {
  const o = rx.input.options;
  return { bundle: rx.input.bundle, agent_id: rx.input.agent_id, actor_id: o?.actor_id || 'anonymous', session_id: o?.session_id || rx.workflowId };
}

/** The run's input for memory: the raw input, or the ref of its rewritten stored copy. */
function input<K extends 'query' | 'text'>(rx: ReactRun, key: K): Record<K, string> & Partial<Record<`${K}_ref`, BlobRef>> {
  const ref = rx.st.memory_input;
  return (ref ? { [key]: '', [`${key}_ref`]: ref } : { [key]: text(rx.input.input) }) as Record<K, string> & Partial<Record<`${K}_ref`, BlobRef>>;
}

/** First run of the chain: does memory apply? (The patch marker is recorded only for root runs that declare memory.) */
export function memoryApplies(rx: ReactRun): boolean {
  const use = memoryUse(rx.agent.memory);
  return !rx.input.options?.parent && (use.reads || use.writes) && patched(PATCHES.memoryReact.id);
}

/**
 * Run start: what the read collections hold for this input joins the first model turn. An input
 * rewritten by pii_redaction or an input guardrail is read from its stored copy (by ref), so no
 * later history holds the raw input; the writeback uses the same copy.
 */
export async function readMemory(rx: ReactRun): Promise<void> {
  const first = rx.st.pending_append[0];
  if (rx.st.input_transformed && first && 'ref' in first) rx.st.memory_input = first.ref;
  if (!memoryUse(rx.agent.memory).reads) return;
  const r = await rx.acts.memoryReadMessage.executeWithOptions({ ...rx.guardOpts, summary: 'memory read' }, [{ ...scope(rx), ...input(rx, 'query') }]);
  const counts = Object.entries(r.found).map(([c, n]) => `${c} ${n}`).join(', ');
  rx.shell.details(`memory read: ${counts || 'no collection'}`);
  if (r.ref) rx.st.pending_append = [...rx.st.pending_append, { ref: r.ref }];
}

/**
 * Run end: write back per collection; approvals wait (concurrently) before the run completes. The
 * result gains the warnings of writebacks not written. A run outside a `--session` is its own
 * session: its `scope: session` collections are emptied once it is done with them.
 */
export async function endRunMemory(rx: ReactRun, result: AgentRunResult, opts: { writeback: boolean }): Promise<AgentRunResult> {
  const out = opts.writeback ? await writeBackMemory(rx, result) : result;
  if (memoryUse(rx.agent.memory).sessionScoped && !rx.input.options?.session_id) {
    await rx.acts.memoryEndSession.executeWithOptions({ ...rx.guardOpts, summary: 'memory: end of the run\'s session' }, [scope(rx)]);
  }
  return out;
}

async function writeBackMemory(rx: ReactRun, result: AgentRunResult): Promise<AgentRunResult> {
  if (!memoryUse(rx.agent.memory).writes) return result;
  const at = new Date().toISOString();
  const wb = await rx.acts.memoryWriteback.executeWithOptions({ ...rx.guardOpts, summary: 'memory writeback' }, [
    { ...scope(rx), message: RUN_MESSAGE, ...input(rx, 'text'), answer: text(result.output), at },
  ]);
  if (wb.written.length) rx.shell.details(`memory written: ${wb.written.join(', ')}`);
  const notWritten = await Promise.all(wb.pending.map((p) => decide(rx, { call_id: writebackCallId(RUN_MESSAGE, p.collection_id), collection_id: p.collection_id, namespace: p.namespace, entry: p.entry, requested_at: at })));
  const warnings = notWritten.filter((w): w is string => w !== undefined);
  return warnings.length ? { ...result, warnings: [...result.warnings, ...warnings] } : result;
}

/** One writeback waiting for a human, in the run's approval book (shell/memory-writeback.ts, shared with orchestrator runs). */
function decide(rx: ReactRun, w: WritebackRequest): Promise<string | undefined> {
  const seen = { kind: 'approval' as const, call_id: w.call_id, tool: WRITEBACK_TOOL, requested_at: w.requested_at, arguments: writebackApproval(w).arguments };
  return awaitWritebackDecision({
    book: rx.book, shell: rx.shell, approvalTimeoutS: rx.approvalTimeoutS,
    write: async (x) => {
      await rx.acts.memoryWrite.executeWithOptions({ ...rx.guardOpts, summary: `memory write ${x.collection_id}` }, [{ collection_id: x.collection_id, namespace: x.namespace, entry: x.entry }]);
    },
    decided: (_x, o) => noteAudit(rx, { ...seen, ...o }),
  }, w);
}
