/**
 * AgentloomClient: what the `loom` CLI does, for an application — start a run of an agent of a
 * registry folder, follow it, answer its pending decisions, pause, resume, cancel it and read its
 * result — over a Temporal `Client`. One implementation: every method calls the functions the CLI
 * commands call (src/operator/runs.ts, decisions.ts, run-status.ts, run-flow.ts, inbox, progress.ts);
 * only printing and exit codes stay in the CLI.
 */
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import type { CompiledBundle, JsonValue } from '../compiled/types';
import type { ConnectionOverrides } from '../connection/config';
import {
  ApproveArgsSchema, PAYLOAD_SHAPES, RejectArgsSchema, RespondArgsSchema,
  type RespondArgs, type RespondResult, type RunOptions, type RunStatus,
} from '../shared/contract';
import { approveUpdate, pauseSignal, rejectUpdate, respondEscalationUpdate, resumeSignal } from '../shared/definitions';
import { prepareCompiled, prepareRun, startPrepared, RunError } from '../operator/runs';
import { callTarget, escalationTarget } from '../operator/decisions';
import { endedAs, RunEndedError } from '../operator/run-control';
import { payloadToSend } from '../operator/payloads';
import { readRunStatus } from '../operator/run-status';
import type { InboxEntry } from '../operator/inbox';

export type { InboxEntry } from '../operator/inbox';

export { RunEndedError };

export interface AgentloomClientOptions {
  /** A connected Temporal client (with the data converter of the workers: agentloomDataConverter / AgentloomClientPlugin). */
  client: Client;
  /** The registry folder agents are compiled from (else LOOM_REGISTRY, else the current folder). */
  registry?: string;
  /** The task queue runs start on (else LOOM_TASK_QUEUE, else the default queue). */
  taskQueue?: string;
  /** Who answers decisions (`by` of approve/reject/respond); default $USER. */
  by?: string;
  /**
   * What the worker registers in code: its defineTool tools (or their names) and `x-<vendor>` policy
   * ids (AgentloomPlugin's `code`). Given, `start` compiles with them known, so an agent naming a
   * code tool or policy the worker lacks is refused before anything starts.
   */
  code?: { tools?: readonly (string | { name: string })[]; policies?: readonly string[] };
}

export interface StartOptions extends RunOptions {
  /** The registry folder of this agent (else the client's). */
  registry?: string;
  /** Write the model's text to the store as it arrives, for `stream(id)` (RunOptions.stream_text). */
  stream?: boolean;
}

/** What a run starts from: an agent id of the registry folder, or a bundle already compiled (its root agent unless `agent` names another). */
export type AgentRef = string | { bundle: CompiledBundle; agent?: string };

export interface RunStatusReport extends Partial<RunStatus> {
  workflow_id: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED… */
  temporal_status: string;
  type: string;
  waiting_for?: string[];
}

export class AgentloomClient {
  readonly client: Client;
  private readonly registry: string;
  private readonly taskQueue?: string;
  private readonly by?: string;
  private readonly code?: { tools?: string[]; policies?: string[] };
  private connection?: Connection;

  constructor(opts: AgentloomClientOptions) {
    this.client = opts.client;
    this.registry = opts.registry ?? process.env.LOOM_REGISTRY ?? process.cwd();
    this.taskQueue = opts.taskQueue;
    this.by = opts.by ?? process.env.USER;
    if (opts.code) this.code = { tools: opts.code.tools?.map((t) => (typeof t === 'string' ? t : t.name)), policies: opts.code.policies ? [...opts.code.policies] : undefined };
  }

  /**
   * Connect with the project's connection settings (explicit overrides, then TEMPORAL_* variables,
   * then the Temporal config profile) and the workers' data converter (LOOM_CODEC_KEY…). `close()` closes it.
   */
  static async connect(opts: Omit<AgentloomClientOptions, 'client'> & { connection?: ConnectionOverrides } = {}): Promise<AgentloomClient> {
    const { Client, Connection } = await import('@temporalio/client');
    const { loadTemporalConfig } = await import('../connection/config');
    const { loomDataConverter } = await import('../codec/data-converter');
    const { temporalClientInterceptors } = await import('../telemetry/temporal-tracing');
    const cfg = loadTemporalConfig(opts.connection);
    const connection = await Connection.connect({ ...cfg.connectionOptions, address: cfg.address ?? '127.0.0.1:7233' });
    const c = new AgentloomClient({ ...opts, client: new Client({ connection, namespace: cfg.namespace, dataConverter: loomDataConverter(), interceptors: temporalClientInterceptors() }) });
    c.connection = connection;
    return c;
  }

  /** Closes the connection `connect()` opened (a client given to the constructor is the caller's). */
  async close(): Promise<void> {
    await this.connection?.close();
  }

  /**
   * Compile `agent` from the registry (or take the compiled bundle given), check `input` (the
   * agent's first interface example when undefined), store the bundle and start the run on the
   * agent's workflow type, as `loom start` does. Returns the run's workflow id. Refusals are a
   * RunError, before anything starts.
   */
  async start(agent: AgentRef, input?: JsonValue, options: StartOptions = {}): Promise<string> {
    const { registry, stream, ...rest } = options;
    const runOptions = Object.keys(rest).length ? rest : undefined;
    const prepared = typeof agent === 'string' && this.code
      ? await prepareCompiled(await this.compileWithCode(agent, registry ?? this.registry), agent, () => input, runOptions)
      : typeof agent === 'string'
        ? await prepareRun(agent, registry ?? this.registry, input === undefined ? undefined : JSON.stringify(input), runOptions)
        : await prepareCompiled(agent.bundle, agent.agent ?? agent.bundle.root, () => input, runOptions);
    if (stream) prepared.runInput.options = { ...prepared.runInput.options, stream_text: true };
    const handle = await startPrepared(this.client, prepared, this.taskQueue);
    return handle.workflowId;
  }

  /** The agent compiled with the worker's code tools and policies known (`code`); a RunError lists the errors. */
  private async compileWithCode(agentId: string, registry: string): Promise<CompiledBundle> {
    const { compileBundle, formatDiagnostic } = await import('../compiler');
    await (await import('../mcp/discover')).pinMcpServers(registry); // as prepareRun: MCP tool schemas pinned into the bundle
    const { bundle, diagnostics } = compileBundle(registry, agentId, { code: this.code });
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (!bundle || errors.length) throw new RunError(`${agentId} does not compile:\n${(errors.length ? errors : diagnostics).map((d) => formatDiagnostic(d)).join('\n')}`);
    return bundle;
  }

  /** `start` then `result`: the run's output. */
  async run(agent: AgentRef, input?: JsonValue, options: StartOptions = {}): Promise<JsonValue> {
    return this.result(await this.start(agent, input, options));
  }

  /** The run's status (`loom status --json`): Temporal's status, the run's state, pending approvals and decisions. */
  async status(id: string): Promise<RunStatusReport> {
    return (await readRunStatus(this.client, id)).out as unknown as RunStatusReport;
  }

  /** Every decision waiting on a human in every open run tree (`loom inbox --json`). */
  async inbox(): Promise<InboxEntry[]> {
    const { collectInbox } = await import('../operator/inbox');
    return collectInbox({ client: this.client }, Date.now());
  }

  /**
   * Approve pending call `callId` (or PATH:CALL_ID) anywhere in the tree of run `id`, optionally
   * with corrected arguments or another tool; refused (an Error with the run's reason) otherwise.
   */
  async approve(id: string, callId: string, opts: { args?: Record<string, unknown>; tool?: string } = {}): Promise<string> {
    await this.refuseEnded(id, 'approve');
    const t = await callTarget({ client: this.client }, id, callId);
    const payload = payloadToSend(ApproveArgsSchema, { call_id: t.callId, ...(opts.args ? { args: opts.args } : {}), ...(opts.tool ? { tool: opts.tool } : {}), by: this.by }, PAYLOAD_SHAPES.approve, 'approveCall');
    return this.client.workflow.getHandle(t.workflowId).executeUpdate(approveUpdate, { args: [payload] });
  }

  /** Reject pending call `callId` anywhere in the tree of run `id`; the model reads `reason`. */
  async reject(id: string, callId: string, reason: string): Promise<string> {
    await this.refuseEnded(id, 'reject');
    const t = await callTarget({ client: this.client }, id, callId);
    const payload = payloadToSend(RejectArgsSchema, { call_id: t.callId, reason, by: this.by }, PAYLOAD_SHAPES.reject, 'rejectCall');
    return this.client.workflow.getHandle(t.workflowId).executeUpdate(rejectUpdate, { args: [payload] });
  }

  /** Answer (`{ output }`) or close (`{ close: true, reason }`) the escalation `ref` (QUEUE or PATH:QUEUE) waiting in the tree of run `id`. */
  async respond(id: string, ref: string, answer: { output: unknown } | { close: true; reason?: string }): Promise<RespondResult> {
    await this.refuseEnded(id, 'respond to');
    const t = await escalationTarget({ client: this.client }, id, ref);
    const payload = payloadToSend(RespondArgsSchema, { queue: t.queue, ...answer, by: this.by }, PAYLOAD_SHAPES.respond, 'respondEscalation') as RespondArgs;
    return this.client.workflow.getHandle(t.workflowId).executeUpdate(respondEscalationUpdate, { args: [payload] });
  }

  /** No new model call, tool call or member starts while paused. */
  async pause(id: string): Promise<void> {
    await this.refuseEnded(id, 'pause');
    await this.client.workflow.getHandle(id).signal(pauseSignal);
  }

  async resume(id: string): Promise<void> {
    await this.refuseEnded(id, 'resume');
    await this.client.workflow.getHandle(id).signal(resumeSignal);
  }

  /** Request Temporal cancellation of the run. */
  async cancel(id: string): Promise<void> {
    await this.refuseEnded(id, 'cancel');
    await this.client.workflow.getHandle(id).cancel();
  }

  /**
   * Wait for the run and return its output (an ephemeral run's kept output is collected, once, as
   * `loom result` does). A failed run is a RunError with the failure chain in words.
   */
  async result(id: string): Promise<JsonValue> {
    const { WorkflowFailedError } = await import('@temporalio/client');
    const { describeFailure } = await import('../operator/progress');
    let result: any;
    try {
      result = await this.client.workflow.getHandle(id).result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw new RunError(`${id} failed: ${describeFailure(err)}`);
      throw err;
    }
    const output = (result?.output ?? result) as JsonValue;
    const { ephemeralOutputRef } = await import('../activities/ephemeral');
    if (!ephemeralOutputRef(output)) return output;
    const { collectOutput } = await import('../operator/run-flow');
    const kept = await collectOutput(id);
    if (!kept) throw new RunError(`${id} is an ephemeral run and its output is no longer in the store (already collected, or swept after LOOM_EPHEMERAL_PICKUP_HOURS)`);
    return kept.output as JsonValue;
  }

  /**
   * The model's text as it arrives, until the run ends: what `loom run --stream` prints, read from
   * the store record the model activity writes (the run must be started with `stream: true`).
   */
  async *stream(id: string): AsyncGenerator<string, void, undefined> {
    const { watchStreamText } = await import('../operator/progress');
    const { openBlobStore } = await import('../activities/blob-store');
    const chunks: string[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const watcher = watchStreamText(openBlobStore(), id, (text) => { chunks.push(text); wake?.(); });
    const handle: WorkflowHandle = this.client.workflow.getHandle(id);
    const end = handle.result().then(() => undefined, () => undefined).then(async () => { await watcher.stop(); ended = true; wake?.(); });
    try {
      for (;;) {
        if (chunks.length) { yield chunks.shift()!; continue; }
        if (ended) return;
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = undefined;
      }
    } finally {
      if (!ended) { await watcher.stop(); }
      void end;
    }
  }

  /** As the CLI's run-control: a run that has ended is refused with how it ended. */
  private async refuseEnded(id: string, action: string): Promise<void> {
    const desc = await this.client.workflow.getHandle(id).describe();
    const how = endedAs(desc);
    if (how) throw new RunEndedError(`run ${id} is ${how}: nothing to ${action}`);
  }
}
