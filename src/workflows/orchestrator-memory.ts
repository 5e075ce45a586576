/**
 * The Agent Definition Specification's memory in an orchestrator's root run, with the semantics of
 * a single agf.react run (react/memory.ts), from the same activities and pure helpers:
 *
 *   run start  after the input contract, each read collection is searched with the run's input,
 *              `{actorId}`/`{sessionId}` substituted; the `# Memory` block joins the task the
 *              members are given (src/orchestration/memory.ts)
 *   run end    after the output contract, each write collection with `writeback.enabled` gets the
 *              final output per its strategy; a collection with `approval_required` waits durably
 *              in the run's approval book (call id `memory-1-<collection>`, `loom inbox`,
 *              `loom approve`/`loom reject`, AgentStatus waiting_for_approval while it waits), and
 *              is not written once the run's approval timeout passes; a run outside a `--session`
 *              is its own session, so its `scope: session` collections are emptied as it ends
 *
 * Only root runs: members keep not reading memory. Decided once per run chain,
 * behind patch `memory-orchestrator` (reached only by root runs whose agent declares memory), and
 * carried across continue-as-new in `carried.memory`.
 */
import { ActivityOptions, log, patched, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { storeActivity } from './activity-options';
import type { JsonObject, JsonValue } from '../compiled/types';
import type { Activities } from '../activities';
import { SEARCH_ATTRIBUTES } from '../shared/contract';
import type { RunAgentInput } from '../shared/contract';
import type { AgentView } from '../runtime/agent-view';
import type { ApprovalBook } from '../runtime/approvals';
import { memoryUse, writebackCallId, type WritebackRequest } from '../runtime/memory';
import { blockNotGiven, carriesBlock, inputText, isRunMemoryState, memberContext, RunMemoryState, taskWithMemory } from '../orchestration/memory';
import { awaitWritebackDecision } from './shell/memory-writeback';
import { registerApprovalHandlers } from './react/approval';
import type { RunShell } from './shell/run-shell';
import { PATCHES } from './patches';

const DEFAULT_APPROVAL_TIMEOUT_S = 7 * 24 * 3600;
/** A run is message 1 of its own session (as a single react run). */
const RUN_MESSAGE = 1;

const OPTS: ActivityOptions = storeActivity(['MemoryDefinition', 'BlobNotFound']);
const acts = proxyActivities<Activities>(OPTS);

/** What the memory step needs of the orchestrator run. */
export interface MemoryHost extends RunShell {
  readonly input: RunAgentInput;
  readonly agent: AgentView;
  readonly book: ApprovalBook;
}

export class RunMemory {
  private constructor(private readonly run: MemoryHost, readonly state: RunMemoryState) {}

  /**
   * The first run of the chain: does memory apply (root run, the agent declares memory, the patch)?
   * If so, read. A continued run takes the carried state; a run whose chain started without memory
   * has none.
   */
  static async enter(run: MemoryHost): Promise<RunMemory | undefined> {
    const carried = run.input.carried;
    if (carried?.usage !== undefined) return isRunMemoryState(carried.memory) ? new RunMemory(run, carried.memory) : undefined;
    const use = memoryUse(run.agent.memory);
    if (run.input.options?.parent || !(use.reads || use.writes) || !patched(PATCHES.memoryOrchestrator.id)) return undefined;
    const m = new RunMemory(run, { query: inputText(run.input.input) });
    if (use.reads) await m.read();
    return m;
  }

  private scope() {
    const o = this.run.input.options;
    return { bundle: this.run.input.bundle, agent_id: this.run.input.agent_id, actor_id: o?.actor_id || 'anonymous', session_id: o?.session_id || workflowInfo().workflowId };
  }

  /** Run start: the block joins the task (a text task) or waits to be given as member context (a JSON task). */
  private async read(): Promise<void> {
    const r = await acts.memoryRead.executeWithOptions({ ...OPTS, summary: 'memory read' }, [{ ...this.scope(), query: this.state.query }]);
    const counts = Object.entries(r.found).map(([c, n]) => `${c} ${n}`).join(', ');
    this.run.details(`memory read: ${counts || 'no collection'}`);
    const t = taskWithMemory(this.run.input.input, r.block);
    this.run.input.input = t.task;
    if (t.context) this.state.context = t.context;
    if (r.block) this.state.block = r.block;
  }

  /**
   * A member starts: its context with the block of a JSON task (members whose input is the task;
   * undefined when unchanged), and whether some member was given the block is noted.
   */
  memberContext(input: JsonValue, context: JsonObject | undefined): JsonObject | undefined {
    const withBlock = memberContext(this.run.input.input, input, context, this.state.context);
    if (this.state.block && !this.state.given && carriesBlock(input, withBlock ?? context, this.state.block)) this.state.given = true;
    return withBlock;
  }

  /** What continue-as-new carries. */
  carry(): JsonObject {
    return { ...this.state };
  }

  /** Run end, once the final output is known: write back (approvals wait), then empty the run's own session collections. */
  async end(output: JsonValue): Promise<void> {
    const unused = blockNotGiven(this.state);
    if (unused) this.run.warn(unused);
    const use = memoryUse(this.run.agent.memory);
    if (use.writes) await this.writeBack(output);
    if (use.sessionScoped && !this.run.input.options?.session_id) {
      await acts.memoryEndSession.executeWithOptions({ ...OPTS, summary: 'memory: end of the run\'s session' }, [this.scope()]);
    }
  }

  private async writeBack(output: JsonValue): Promise<void> {
    const at = new Date().toISOString();
    const wb = await acts.memoryWriteback.executeWithOptions({ ...OPTS, summary: 'memory writeback' }, [
      { ...this.scope(), message: RUN_MESSAGE, text: this.state.query, answer: inputText(output), at },
    ]);
    if (wb.written.length) this.run.details(`memory written: ${wb.written.join(', ')}`);
    if (!wb.pending.length) return;
    // approve/reject of this run's writebacks (registered once: a run writes back once; a strategies run's route handlers are done by now).
    registerApprovalHandlers(this.run.input, this.run, this.run.book);
    const host = {
      book: this.run.book, shell: this.run,
      approvalTimeoutS: this.run.input.options?.approval_timeout_seconds ?? DEFAULT_APPROVAL_TIMEOUT_S,
      write: async (w: WritebackRequest) => {
        await acts.memoryWrite.executeWithOptions({ ...OPTS, summary: `memory write ${w.collection_id}` }, [{ collection_id: w.collection_id, namespace: w.namespace, entry: w.entry }]);
      },
      // Orchestrators publish AgentStatus at milestones only: `loom inbox` finds the run by it.
      waiting: (on: boolean) => publishStatus(on ? 'waiting_for_approval' : 'running'),
    };
    await Promise.all(wb.pending.map((p) => awaitWritebackDecision(host, { call_id: writebackCallId(RUN_MESSAGE, p.collection_id), collection_id: p.collection_id, namespace: p.namespace, entry: p.entry, requested_at: at })));
  }
}

/** Search attributes are best effort (as in the run shell): a server without them registered must not break runs. */
function publishStatus(state: string): void {
  try {
    upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [state] });
  } catch (err) {
    log.warn('search attribute update failed', { error: String(err) });
  }
}
