/**
 * AgentloomClient: what the `loom` CLI does, for an application — start a run of an agent of a
 * registry folder, follow it with progress events, answer its pending decisions, pause, resume,
 * cancel it, read its result, list runs and the inbox, talk to a chat session, dispatch a request
 * by the agents' routing — over a Temporal `Client`. One implementation: every run-facing command
 * of the CLI builds an AgentloomClient and calls these methods
 * (src/cli/client-session.ts); only parsing, printing and exit codes stay in the CLI. Every
 * implementation module is loaded by the method that needs it, so a command that prints a status
 * never loads the compiler or the store.
 */
import type { Client, WorkflowExecutionInfo, WorkflowHandle } from '@temporalio/client';
import type { CompiledAgent, CompiledBundle, JsonValue } from '../compiled/types';
import type { ConnectionOverrides } from '../connection/config';
import type { RespondResult, RunOptions, RunStatus } from '../shared/contract';
import type { SessionReply } from '../shared/session';
import type { EmbeddedStarter, LoomSession } from '../operator/connect';
import type { InboxEntry } from '../operator/inbox';
import { SEARCH_ATTRIBUTES } from '../shared/names';
import type { PreparedRun } from '../operator/runs';
import type { RunProgress } from '../operator/run-flow';
import type { Ranked } from '../routing/dispatch';
import { RunEndedError } from '../operator/run-control';
import { RunError, RunFailedError, SessionStartError } from '../operator/errors';

export type { InboxEntry } from '../operator/inbox';
export type { SessionReply } from '../shared/session';
export type { EmbeddedStarter } from '../operator/connect';

export type { RunProgress } from '../operator/run-flow';
export type { Ranked as RankedAgent } from '../routing/dispatch';
export { RunEndedError, RunError, RunFailedError, SessionStartError };
export type { Form as AgentForm, FormField as AgentFormField } from '../compiler/ui';
export type { DiagramFormat } from '../compiler/diagram';

/** An agent definition that does not compile (or is not in the registry): `diagnostics` are its errors as `loom validate` prints them. */
export class DefinitionError extends Error {
  constructor(message: string, readonly diagnostics: string[] = []) { super(message); this.name = 'DefinitionError'; }
}

/** `diagram(agent, { run })` of a run of another agent: `runAgent` is the agent the run is of. */
export class AgentMismatchError extends Error {
  constructor(readonly runId: string, readonly runAgent: string, readonly agent: string) {
    super(`run ${runId} is a run of '${runAgent}', not '${agent}'`);
    this.name = 'AgentMismatchError';
  }
}

/** `delete` of a run still open without `force`. */
export class RunStillOpenError extends Error {
  constructor(readonly runId: string) { super(`${runId} is still running: cancel it first, or delete it with force`); this.name = 'RunStillOpenError'; }
}

/**
 * A run of a chat session (`run` with `session`) that succeeded but whose prompt and answer could
 * not be added to the session: `outcome` is the run's, its output included.
 */
export class SessionRecordError extends Error {
  constructor(message: string, readonly session: string, readonly outcome: RunOutcome) { super(message); this.name = 'SessionRecordError'; }
}

/** One run waiting on a human queue, as `escalations` (and `loom escalations --json`) shows it. */
export interface EscalationSummary {
  workflow_id: string;
  type: string;
  /** The human queue it waits on. */
  queue: string;
  /** Why it escalated, and since when (ISO time), from the run's status; absent when the run did not answer. */
  reason?: string;
  since?: string;
  agent_id?: string;
}

/** What `delete` removed: the runs of the id (continue-as-new chain, earlier executions), its member runs, and whether Temporal has removed it yet. */
export interface DeleteResult { runs: number; members: number; removed: boolean }

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

/** How `AgentloomClient.connect` reaches Temporal. */
export interface ConnectOptions extends Omit<AgentloomClientOptions, 'client'> {
  /** Connection settings over the TEMPORAL_* variables and the Temporal config profile (address, namespace, TLS, API key…). */
  connection?: ConnectionOverrides;
  /**
   * Where to go when no address is configured: `'default-address'` (the default) 127.0.0.1:7233;
   * `'loom-dev'` the `loom dev` server running from this folder (.loom/dev.json), else an error that
   * says how to get a server, as every `loom` command does; or a starter that runs an embedded dev
   * server and worker for as long as the client is open (`loom run`).
   */
  local?: 'default-address' | 'loom-dev' | EmbeddedStarter;
  /** Open the connection on the first call that needs the server, not in `connect()`: bad input is refused before any connection. */
  lazy?: boolean;
  /** With an embedded starter: the worker's INFO log. */
  verbose?: boolean;
}

/** Where a connected client is: its server, namespace, Web UI and whether this client started it. */
export interface ConnectionInfo { address: string; namespace: string; uiUrl?: string; embedded: boolean }

export interface StartOptions extends RunOptions {
  /** The registry folder of this agent (else the client's). */
  registry?: string;
  /** Write the model's text to the store as it arrives, for `stream(id)` (RunOptions.stream_text). */
  stream?: boolean;
  /**
   * The input as `loom start --input` takes it: inline JSON or `@file.json` (instead of `input`);
   * unreadable or invalid text is refused with what to write.
   */
  inputText?: string;
}

/** `run` and `runDetail`: how to start the run, and what to be told while it runs. */
export interface RunCallOptions extends StartOptions {
  /**
   * Each step of the run as it happens (typed events, each with the line `loom run` prints): the
   * input taken from the agent's examples, the session continued, the server started, the run
   * started, every change its status query shows (decisions awaited included), its warnings and
   * history link. Without it the run is not watched.
   */
  onProgress?: (event: RunProgress) => void;
  /** The model's text as it arrives, read from the store (implies `stream`); `runDetail` says whether the last text streamed was the output. */
  onText?: (text: string) => void;
  /**
   * Continue chat session `session` (an id of letters, digits, '.', '_', ':' or '-'): the run sees
   * the session's earlier exchanges, and its prompt and answer join the session when it succeeds.
   */
  session?: string;
}

/** What `runDetail` resolves to: the run, its output and what it was started with. */
export interface RunOutcome {
  workflowId: string;
  output: JsonValue;
  input: JsonValue;
  /** The input is the agent's first interface example (none was given). */
  inputFromExample: boolean;
  /** The compiled root agent (its `interface.output.render` shapes the output for a person). */
  agent: CompiledAgent;
  /** With `onText`: the text streamed last already is the output (the same string, or JSON equal to it). */
  streamedOutput: boolean;
}

/** `route`: how the registry's active agents rank for a request (the Agent Definition Specification's `routing`). */
export interface DispatchRoute {
  /** Every active agent, best first (tier, priority, score, agent id); tier 0 did not match at all. */
  ranked: Ranked[];
  /** The agent `dispatch` runs first; undefined when no active agent matches. */
  winner?: Ranked;
  /** The ranking, one line per agent (what `loom dispatch --explain` prints). */
  explanation: string;
  /** The registry folder ranked, and how many active agents it has. */
  registry: string;
  activeAgents: number;
}

/** An agent `dispatch` tried that did not answer: unavailable (refused before it started) or failed (its run failed). */
export interface DispatchAttempt {
  agent: string;
  outcome: 'unavailable' | 'failed';
  /** The failed run; absent for an unavailable agent. */
  workflowId?: string;
  reason: string;
  /** The fallback agent tried next; absent when none is left. */
  next?: string;
  /** What `loom dispatch` says of it (after "loom dispatch: "). */
  line: string;
}

export interface DispatchOptions {
  /** The registry folder (else the client's). */
  registry?: string;
  /** The input of the agent that runs (else derived from the text: the agent's first required string property). */
  input?: JsonValue;
  /** The input as `loom dispatch --input` takes it: inline JSON or `@file.json` (instead of `input`). */
  inputText?: string;
  /** Progress of each run started, as `run`'s. */
  onProgress?: (event: RunProgress) => void;
  /** Each agent that did not answer, as it is given up on. */
  onAttempt?: (attempt: DispatchAttempt) => void;
}

/** What `dispatch` resolves to: the agent that answered (the winner or one of its fallback agents), its run and output. */
export interface DispatchResult {
  agent: string;
  /** The agent the routing chose first. */
  winner: string;
  workflowId: string;
  output: JsonValue;
  /** The agents tried before, that did not answer. */
  attempts: DispatchAttempt[];
}

/** `dispatch` of a request no active agent matches by its routing; `route` is the ranking. */
export class NoRouteError extends Error {
  constructor(message: string, readonly route: DispatchRoute) { super(message); this.name = 'NoRouteError'; }
}

/** `dispatch` where the winner and every fallback agent were unavailable or failed; `attempts` says how, in order. */
export class DispatchFailedError extends Error {
  constructor(readonly attempts: DispatchAttempt[]) {
    super(`no agent answered: ${attempts.map((a) => `${a.agent} ${a.outcome === 'failed' ? 'failed' : 'is unavailable'}`).join(', ')}`);
    this.name = 'DispatchFailedError';
  }
}

/** `chat` and `openChat`: which session, and how it starts when none runs under its id. */
export interface ChatOptions extends Pick<RunOptions, 'approval_timeout_seconds' | 'on_approval_timeout'> {
  /** The session id (letters, digits, '.', '_', ':' or '-', up to 128): joined when it runs, started under it otherwise; default a new id. */
  session?: string;
  /** The registry folder of the agent (else the client's). */
  registry?: string;
  /** The actor id of the agent's memory collections. */
  actorId?: string;
  /** A new session ends after it has been idle this long (default 15 minutes). */
  idleTimeoutSeconds?: number;
}

/** A chat session `openChat` started or joined: `send` one message, resolve to its reply. */
export interface ChatSession {
  sessionId: string;
  agent: string;
  /** The session was already running under its id (joined), else it was started. */
  joined: boolean;
  /** How long the session waits for a message before it ends (as it was started by this client). */
  idleTimeoutSeconds: number;
  /** One message (non-empty), sent with update-with-start: a session that ended idle starts again under its id. */
  send(text: string): Promise<SessionReply>;
}

/** What `chat` resolves to: the session the message went to (its id to continue it) and the reply. */
export interface ChatAnswer { sessionId: string; reply: SessionReply }

/** What a run starts from: an agent id of the registry folder, or a bundle already compiled (its root agent unless `agent` names another). */
export type AgentRef = string | { bundle: CompiledBundle; agent?: string };

export interface RunStatusReport extends Partial<RunStatus> {
  workflow_id: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED… */
  temporal_status: string;
  type: string;
  waiting_for?: string[];
}

/** `statusDetail`: the report and what it is made of. */
export interface RunStatusDetail {
  /** What `status(id)` returns (`loom status --json`). */
  report: RunStatusReport;
  /** The run's own answer to the status query; absent when it could not answer (see `queryError`). */
  status?: RunStatus;
  /** Why the status query had no answer (the run has not taken its first workflow task yet, no worker serves its queue…). */
  queryError?: string;
  /** What the run waits on besides a human (a store or model endpoint being retried), from its pending activities. */
  waiting: string[];
}

/** Where a decision was delivered: the run of the tree that held it (a member's id, or the root's) and the update's answer. */
export interface DecisionSent<R = string> {
  workflowId: string;
  /** The call answered (approve, reject) or the queue (respond). */
  callId?: string;
  queue?: string;
  result: R;
}

/** Which runs `list` returns; the filters are ANDed. */
export interface ListFilter {
  /** AgentStatus (running, waiting_for_approval, completed, failed…). */
  status?: string;
  agent?: string;
  pattern?: string;
  /** Runs waiting on this human queue. */
  queue?: string;
  /** Member runs (child workflows) too; by default only roots. */
  all?: boolean;
  /** Each root with its member runs under `members`. */
  tree?: boolean;
  /** At most this many runs (default 50). */
  limit?: number;
}

/** One run as `list` (and `loom list --json`) shows it. */
export interface RunSummary {
  workflow_id: string;
  type: string;
  temporal_status: string;
  agent_id: string | null;
  pattern: string | null;
  agent_status: string | null;
  escalation_queue: string | null;
  started?: string;
  closed: string | null;
  /** With `tree`: the member runs of this root, by workflow id. */
  members?: RunSummary[];
}

/** Which decisions `inbox` returns. */
export interface InboxFilter {
  agent?: string;
  queue?: string;
  /** Only decisions waiting at least this long. */
  olderThanSeconds?: number;
}

/** `inboxSnapshot`: the entries and the run trees that did not answer in time (their decisions are missing). */
export interface InboxSnapshot { entries: InboxEntry[]; unanswered: string[]; at: number }

/** A quoted string of Temporal's visibility query language. */
export function quote(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The visibility query of a list filter (search attributes AgentStatus, AgentId, AgentPattern, EscalationQueue). */
export function listQuery(f: Pick<ListFilter, 'status' | 'agent' | 'pattern' | 'queue'>): string {
  const parts: string[] = [];
  if (f.status) parts.push(`${SEARCH_ATTRIBUTES.status} = ${quote(f.status)}`);
  if (f.agent) parts.push(`${SEARCH_ATTRIBUTES.agentId} = ${quote(f.agent)}`);
  if (f.pattern) parts.push(`${SEARCH_ATTRIBUTES.pattern} = ${quote(f.pattern)}`);
  if (f.queue) parts.push(`${SEARCH_ATTRIBUTES.escalationQueue} = ${quote(f.queue)}`);
  return parts.join(' AND ');
}

function summary(wf: WorkflowExecutionInfo): RunSummary {
  const sa = (wf.searchAttributes ?? {}) as Record<string, unknown[]>;
  const one = (name: string) => (sa[name]?.[0] ?? null) as string | null;
  return {
    workflow_id: wf.workflowId,
    type: wf.type,
    temporal_status: wf.status.name,
    agent_id: one(SEARCH_ATTRIBUTES.agentId),
    pattern: one(SEARCH_ATTRIBUTES.pattern),
    agent_status: one(SEARCH_ATTRIBUTES.status),
    escalation_queue: one(SEARCH_ATTRIBUTES.escalationQueue),
    started: wf.startTime?.toISOString(),
    closed: wf.closeTime?.toISOString() ?? null,
  };
}

export class AgentloomClient {
  private temporal?: Client;
  private open?: () => Promise<LoomSession>;
  private opening?: Promise<LoomSession>;
  private session?: LoomSession;
  private readonly registry: string;
  private readonly taskQueue?: string;
  private readonly by?: string;
  private readonly code?: { tools?: string[]; policies?: string[] };
  private serverSaid = false;

  constructor(opts: AgentloomClientOptions) {
    this.temporal = opts.client;
    this.registry = opts.registry ?? process.env.LOOM_REGISTRY ?? process.cwd();
    this.taskQueue = opts.taskQueue;
    this.by = opts.by ?? process.env.USER;
    if (opts.code) this.code = { tools: opts.code.tools?.map((t) => (typeof t === 'string' ? t : t.name)), policies: opts.code.policies ? [...opts.code.policies] : undefined };
  }

  /**
   * Connect with the project's connection settings (explicit overrides, then TEMPORAL_* variables,
   * then the Temporal config profile) and the workers' data converter (LOOM_CODEC_KEY…); with no
   * address configured, `local` says where to go. `close()` closes what it opened.
   */
  static async connect(opts: ConnectOptions = {}): Promise<AgentloomClient> {
    const { connection, local, lazy, verbose, ...rest } = opts;
    // No Client yet: `temporalClient()` awaits the connection opened below.
    const c = new AgentloomClient({ ...rest, client: undefined as unknown as Client });
    const open = async (): Promise<LoomSession> => {
      const { connect, clientFor } = await import('../operator/connect');
      if (local === 'loom-dev' || typeof local === 'function') return connect({ embedded: local === 'loom-dev' ? 'never' : local, verbose, overrides: connection });
      const { loadTemporalConfig } = await import('../connection/config');
      const cfg = loadTemporalConfig(connection);
      const address = cfg.address ?? '127.0.0.1:7233';
      const { client, connection: conn } = await clientFor(address, cfg.namespace, cfg);
      return { client, address, namespace: cfg.namespace, embedded: false, close: () => conn.close() };
    };
    c.open = () => open().then((s) => { c.session = s; c.temporal = s.client; return s; });
    // A lazy client connects on its first call that needs the server; an eager one here (and fails here).
    if (!lazy) await c.connecting();
    return c;
  }

  /** The Temporal client (connected by then); a lazy client connects on this first call. */
  async temporalClient(): Promise<Client> {
    if (this.temporal) return this.temporal;
    return (await this.connecting()).client;
  }

  /** The connection of a client made by `connect()`, opened once. */
  private connecting(): Promise<LoomSession> {
    if (!this.open) throw new Error('AgentloomClient: closed');
    this.opening ??= this.open();
    return this.opening;
  }

  /** The Temporal client this AgentloomClient uses; for a lazy client, only once a call has connected it. */
  get client(): Client {
    if (!this.temporal) throw new Error('AgentloomClient: not connected yet (a lazy client connects on its first call)');
    return this.temporal;
  }

  /** The server, namespace and Web UI of a client made by `connect()` (connecting a lazy one); undefined for a client given to the constructor. */
  async connectionInfo(): Promise<ConnectionInfo | undefined> {
    if (!this.open) return undefined;
    const s = await this.connecting();
    return { address: s.address, namespace: s.namespace, ...(s.uiUrl ? { uiUrl: s.uiUrl } : {}), embedded: s.embedded };
  }

  /** Closes what `connect()` opened (the connection; an embedded server and worker after it); a client given to the constructor is the caller's. */
  async close(): Promise<void> {
    if (!this.open) return;
    const opening = this.opening;
    this.open = undefined;
    this.opening = undefined;
    const s = this.session ?? (await opening?.catch(() => undefined));
    this.session = undefined;
    this.temporal = undefined;
    await s?.close();
  }

  /**
   * Compile `agent` from the registry (or take the compiled bundle given), check `input` (the
   * agent's first interface example when undefined), store the bundle and start the run on the
   * agent's workflow type, as `loom start` does. Returns the run's workflow id. Refusals are a
   * RunError, before anything connects or starts.
   */
  async start(agent: AgentRef, input?: JsonValue, options: StartOptions = {}): Promise<string> {
    return (await this.startRun(agent, input, options)).workflowId;
  }

  /**
   * `start`, with what was started: the workflow id, the input (`inputFromExample` when it is the
   * agent's first interface example) and the compiled root agent (its `interface.output.render`).
   */
  async startRun(agent: AgentRef, input?: JsonValue, options: StartOptions = {}): Promise<{ workflowId: string; input: JsonValue; inputFromExample: boolean; agent: CompiledAgent }> {
    const { startPrepared } = await import('../operator/runs');
    const prepared = await this.prepare(agent, input, options);
    const handle = await startPrepared(await this.temporalClient(), prepared, this.taskQueue);
    return { workflowId: handle.workflowId, input: prepared.input, inputFromExample: prepared.inputFromExample, agent: prepared.root };
  }

  /** Compile (or take the bundle), check the input, store the bundle: everything before a run starts; refusals are a RunError. */
  private async prepare(agent: AgentRef, input: JsonValue | undefined, options: StartOptions, session?: string): Promise<PreparedRun> {
    const { prepareCompiled, prepareRun } = await import('../operator/runs');
    const { registry, stream, inputText, ...rest } = options;
    const runOptions = Object.keys(rest).length ? rest : undefined;
    const text = inputText ?? (input === undefined ? undefined : JSON.stringify(input));
    const prepared = typeof agent === 'string' && this.code
      ? await prepareCompiled(await this.compileWithCode(agent, registry ?? this.registry), agent, () => (inputText !== undefined ? JSON.parse(inputText) as JsonValue : input), runOptions, session)
      : typeof agent === 'string'
        ? await prepareRun(agent, registry ?? this.registry, text, runOptions, session)
        : await prepareCompiled(agent.bundle, agent.agent ?? agent.bundle.root, () => input, runOptions, session);
    if (stream) prepared.runInput.options = { ...prepared.runInput.options, stream_text: true };
    // The agent run takes its agent's view from the start input instead of a loadAgent activity
    // (one workflow task and one activity task fewer), built by the function that activity uses;
    // the lifecycle check loadAgent made for a root run was made above, with the same message.
    const { withAgentView } = await import('../runtime/agent-view-build');
    prepared.runInput = withAgentView(prepared.runInput, prepared.bundle, prepared.workflowType);
    return prepared;
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

  /**
   * Start the run and follow it to its end: its output. A refused input is a RunError before
   * anything starts; a failed run a RunFailedError (its workflow id and the failure in words).
   * `onProgress` and `onText` say what happens while it runs (what `loom run` prints).
   */
  async run(agent: AgentRef, input?: JsonValue, options: RunCallOptions = {}): Promise<JsonValue> {
    return (await this.runDetail(agent, input, options)).output;
  }

  /**
   * `run`, with what it was: the workflow id, the input (and whether it was the agent's first
   * example), the compiled root agent and whether the text streamed last was the output. A run
   * of a session whose answer could not join the session is a SessionRecordError carrying this.
   */
  async runDetail(agent: AgentRef, input?: JsonValue, options: RunCallOptions = {}): Promise<RunOutcome> {
    const { onProgress, onText, session, ...start } = options;
    const prepared = await this.prepare(agent, input, onText ? { ...start, stream: true } : start, session);
    const emit = onProgress ?? (() => undefined);
    if (prepared.inputFromExample) emit({ kind: 'input', line: `input (first of interface.input.examples): ${JSON.stringify(prepared.input)}`, input: prepared.input });
    const sess = prepared.session;
    if (sess) emit({ kind: 'session', line: `session ${sess.id}: ${sess.prev.runs} earlier run(s), ${sess.kept} earlier message(s) given to the model${sess.dropped ? `, ${sess.dropped} left out (session budget)` : ''}`, session: sess.id, runs: sess.prev.runs, kept: sess.kept, dropped: sess.dropped });
    const end = await this.follow(prepared, { onProgress, onText });
    const outcome: RunOutcome = { workflowId: end.workflowId, output: end.output, input: prepared.input, inputFromExample: prepared.inputFromExample, agent: prepared.root, streamedOutput: end.streamedOutput };
    if (sess) {
      const { recordSessionRun } = await import('../operator/runs');
      try {
        await recordSessionRun(prepared, end.workflowId, end.output);
      } catch (err) {
        throw new SessionRecordError(`the answer was not added to session ${sess.id}: ${(err as Error).message}`, sess.id, outcome);
      }
    }
    return outcome;
  }

  /**
   * Start a prepared run on this client's queue and follow it to its end (progress, streamed
   * text); the server line is said once, when this client started a server of its own.
   */
  private async follow(prepared: PreparedRun, o: { onProgress?: (e: RunProgress) => void; onText?: (text: string) => void }): Promise<{ workflowId: string; output: JsonValue; streamedOutput: boolean }> {
    const client = await this.temporalClient();
    const s = this.session;
    if (s?.embedded && !this.serverSaid) {
      this.serverSaid = true;
      o.onProgress?.({ kind: 'server', line: `embedded Temporal server at ${s.address}${s.uiUrl ? `, Web UI ${s.uiUrl}` : ''}`, address: s.address, ...(s.uiUrl ? { uiUrl: s.uiUrl } : {}) });
    }
    const { runToEnd } = await import('../operator/run-flow');
    let lastStreamed: string | undefined;
    let follow: ((workflowId: string) => { stop(): Promise<void> }) | undefined;
    if (o.onText) {
      const write = o.onText;
      const { watchStreamText } = await import('../operator/progress');
      const { openBlobStore } = await import('../activities/blob-store');
      follow = (wid) => watchStreamText(openBlobStore(), wid, write, undefined, (r) => { lastStreamed = r.text; });
    }
    const end = await runToEnd(client, prepared, { taskQueue: this.taskQueue, uiUrl: s?.uiUrl, namespace: s?.namespace ?? client.options.namespace, embedded: s?.embedded, onProgress: o.onProgress, follow });
    if (!end.ok) throw new RunFailedError(end.workflowId, end.reason);
    const { streamedIsOutput } = await import('../operator/progress');
    return { workflowId: end.workflowId, output: end.output, streamedOutput: lastStreamed !== undefined && streamedIsOutput(lastStreamed, end.output) };
  }

  /**
   * Rank the registry's active agents for `text` by their `routing` (trigger phrases, intents,
   * priority), as `dispatch` would; nothing runs and no server is needed.
   */
  async route(text: string, opts: { registry?: string } = {}): Promise<DispatchRoute> {
    return (await this.routeWith(text, opts.registry ?? this.registry)).route;
  }

  private async routeWith(text: string, dir: string) {
    const { loadRegistry } = await import('../compiler');
    const { rankAgents, explainRanking } = await import('../routing/dispatch');
    const reg = loadRegistry(dir);
    const agents = [...reg.entries.agent.values()].filter((e) => e.data?.status === 'active');
    const ranked = rankAgents(text, agents.map((e) => ({ agent_id: e.id, routing: (e.data?.routing ?? undefined) as never })));
    const winner = ranked[0] && ranked[0].tier > 0 ? ranked[0] : undefined;
    const route: DispatchRoute = { ranked, ...(winner ? { winner } : {}), explanation: explainRanking(ranked), registry: dir, activeAgents: agents.length };
    return { route, reg };
  }

  /**
   * The Agent Definition Specification's dispatch: run the agent whose routing best matches `text`
   * with the text as its input (or the input given); when it is unavailable (does not compile,
   * refuses the input) or its run fails, its `fallback_agents` in order. A request no agent
   * matches is a NoRouteError; when none answers, a DispatchFailedError with every attempt.
   */
  async dispatch(text: string, opts: DispatchOptions = {}): Promise<DispatchResult> {
    const dir = opts.registry ?? this.registry;
    const { route, reg } = await this.routeWith(text, dir);
    const winner = route.winner;
    if (!winner) throw new NoRouteError(`no active agent in ${dir} matches ${JSON.stringify(text)} by its routing.intents or routing.trigger_phrases${route.activeAgents ? '' : ' (the registry has no active agent)'}`, route);
    const { attemptOrder, inputFromText } = await import('../routing/dispatch');
    const given = opts.inputText ?? (opts.input === undefined ? undefined : JSON.stringify(opts.input));
    const order = attemptOrder(winner);
    const attempts: DispatchAttempt[] = [];
    const gaveUp = (a: Omit<DispatchAttempt, 'line' | 'next'>, i: number) => {
      const next = order[i + 1];
      const onward = next ? `; trying fallback agent ${next}` : winner.fallback_agents.length ? '; no fallback agent left' : '; it has no routing.fallback_agents';
      const line = a.outcome === 'failed' ? `${a.agent} failed (${a.workflowId}): ${a.reason}${onward}` : `${a.agent} is unavailable: ${a.reason}${onward}`;
      const attempt: DispatchAttempt = { ...a, ...(next ? { next } : {}), line };
      attempts.push(attempt);
      opts.onAttempt?.(attempt);
    };
    for (let i = 0; i < order.length; i++) {
      const id = order[i];
      let prepared: PreparedRun;
      try {
        const schema = (reg.entries.agent.get(id)?.data?.interface as { input?: { schema?: unknown } } | undefined)?.input?.schema;
        const derived = given === undefined ? inputFromText(schema, text) : undefined;
        if (given === undefined && !derived) throw new RunError(`${id}'s interface.input.schema has no string property to put the text in: pass --input JSON`);
        prepared = await this.prepare(id, undefined, { registry: dir, inputText: given ?? JSON.stringify(derived) });
      } catch (err) {
        if (!(err instanceof RunError)) throw err;
        gaveUp({ agent: id, outcome: 'unavailable', reason: err.message }, i);
        continue;
      }
      try {
        const end = await this.follow(prepared, { onProgress: opts.onProgress });
        return { agent: id, winner: winner.agent_id, workflowId: end.workflowId, output: end.output, attempts };
      } catch (err) {
        if (!(err instanceof RunFailedError)) throw err;
        gaveUp({ agent: id, outcome: 'failed', workflowId: err.workflowId, reason: err.reason }, i);
      }
    }
    throw new DispatchFailedError(attempts);
  }

  /** The run's status (`loom status --json`): Temporal's status, the run's state, pending approvals and decisions. */
  async status(id: string): Promise<RunStatusReport> {
    return (await this.statusDetail(id)).report;
  }

  /** `status` with what it is made of: the run's own status answer (or why there is none) and what it waits on. */
  async statusDetail(id: string): Promise<RunStatusDetail> {
    const { readRunStatus } = await import('../operator/run-status');
    const v = await readRunStatus(await this.temporalClient(), id);
    return { report: v.out as unknown as RunStatusReport, ...(v.status ? { status: v.status } : {}), ...(v.queryError !== undefined ? { queryError: v.queryError } : {}), waiting: v.waiting };
  }

  /** Every decision waiting on a human in every open run tree (`loom inbox --json`), oldest first. */
  async inbox(filter: InboxFilter = {}): Promise<InboxEntry[]> {
    return (await this.inboxSnapshot(filter)).entries;
  }

  /** `inbox`, with the run trees whose status query timed out (their decisions are not in `entries`). */
  async inboxSnapshot(filter: InboxFilter = {}): Promise<InboxSnapshot> {
    const { collectInbox } = await import('../operator/inbox');
    const client = await this.temporalClient();
    const at = Date.now();
    const unanswered: string[] = [];
    const min = filter.olderThanSeconds ?? 0;
    const entries = (await collectInbox({ client }, at, unanswered))
      .filter((e) => (!filter.agent || e.agent_id === filter.agent) && (!filter.queue || e.queue === filter.queue) && e.waited_seconds >= min);
    return { entries, unanswered, at };
  }

  /** Runs from Temporal visibility, newest first: roots only unless `all`; with `tree`, each root's members under it. */
  async list(filter: ListFilter = {}): Promise<RunSummary[]> {
    const client = await this.temporalClient();
    const limit = filter.limit ?? 50;
    // Roots are chosen by the server (ParentWorkflowId IS NULL), and a page holds at most `limit`
    // runs: `--limit N` reads one page of N runs, not a server page (1,000 by default) it then
    // filters, however busy the namespace.
    const query = [listQuery(filter), ...(filter.all ? [] : ['ParentWorkflowId IS NULL'])].filter(Boolean).join(' AND ');
    const rows: RunSummary[] = [];
    if (limit <= 0) return rows;
    for await (const wf of client.workflow.list({ ...(query ? { query } : {}), pageSize: Math.min(limit, 1000) })) {
      rows.push(summary(wf));
      if (rows.length >= limit) break;
    }
    if (filter.tree) {
      for (const r of rows) {
        const members: RunSummary[] = [];
        for await (const m of client.workflow.list({ query: `WorkflowId STARTS_WITH ${quote(`${r.workflow_id}/`)}` })) members.push(summary(m));
        r.members = members.sort((a, b) => a.workflow_id.localeCompare(b.workflow_id));
      }
    }
    return rows;
  }

  /**
   * Approve pending call `callId` (or PATH:CALL_ID) anywhere in the tree of run `id`, optionally
   * with corrected arguments or another tool; refused (an Error with the run's reason) otherwise.
   * Resolves to the run that held the call and the run's confirmation.
   */
  async approve(id: string, callId: string, opts: { args?: Record<string, unknown>; tool?: string } = {}): Promise<DecisionSent> {
    const { ApproveArgsSchema, PAYLOAD_SHAPES } = await import('../shared/contract');
    const { payloadToSend } = await import('../operator/payloads');
    const fields = { ...(opts.args ? { args: opts.args } : {}), ...(opts.tool ? { tool: opts.tool } : {}), by: this.by };
    // The run checks the payload with the same schema: a misfit is said before anything is sent.
    payloadToSend(ApproveArgsSchema, { call_id: callId, ...fields }, PAYLOAD_SHAPES.approve, 'approveCall');
    const client = await this.temporalClient();
    await this.refuseEnded(client, id, 'approve');
    const { callTarget } = await import('../operator/decisions');
    const { approveUpdate } = await import('../shared/definitions');
    const t = await callTarget({ client }, id, callId);
    const payload = payloadToSend(ApproveArgsSchema, { call_id: t.callId, ...fields }, PAYLOAD_SHAPES.approve, 'approveCall');
    const result = await client.workflow.getHandle(t.workflowId).executeUpdate(approveUpdate, { args: [payload] });
    return { workflowId: t.workflowId, callId: t.callId, result };
  }

  /** Reject pending call `callId` anywhere in the tree of run `id`; the model reads `reason`. */
  async reject(id: string, callId: string, reason: string): Promise<DecisionSent> {
    const { RejectArgsSchema, PAYLOAD_SHAPES } = await import('../shared/contract');
    const { payloadToSend } = await import('../operator/payloads');
    payloadToSend(RejectArgsSchema, { call_id: callId, reason, by: this.by }, PAYLOAD_SHAPES.reject, 'rejectCall');
    const client = await this.temporalClient();
    await this.refuseEnded(client, id, 'reject');
    const { callTarget } = await import('../operator/decisions');
    const { rejectUpdate } = await import('../shared/definitions');
    const t = await callTarget({ client }, id, callId);
    const payload = payloadToSend(RejectArgsSchema, { call_id: t.callId, reason, by: this.by }, PAYLOAD_SHAPES.reject, 'rejectCall');
    const result = await client.workflow.getHandle(t.workflowId).executeUpdate(rejectUpdate, { args: [payload] });
    return { workflowId: t.workflowId, callId: t.callId, result };
  }

  /**
   * Answer (`{ output }`) or close (`{ close: true, reason }`) the escalation `ref` (QUEUE, PATH:QUEUE
   * or PATH) waiting in the tree of run `id`. With `queue`, the escalation `ref` names must wait on
   * that queue (refused otherwise).
   */
  async respond(id: string, ref: string, answer: { output: unknown } | { close: true; reason?: string }, opts: { queue?: string } = {}): Promise<DecisionSent<RespondResult>> {
    const { RespondArgsSchema, PAYLOAD_SHAPES } = await import('../shared/contract');
    const { payloadToSend } = await import('../operator/payloads');
    payloadToSend(RespondArgsSchema, { queue: opts.queue ?? ref, ...answer, by: this.by }, PAYLOAD_SHAPES.respond, 'respondEscalation');
    const client = await this.temporalClient();
    await this.refuseEnded(client, id, 'respond to');
    const { escalationTarget, RefusedError } = await import('../operator/decisions');
    const { respondEscalationUpdate } = await import('../shared/definitions');
    const t = await escalationTarget({ client }, id, ref);
    if (opts.queue !== undefined && t.queue !== opts.queue) throw new RefusedError(`${ref} waits on queue '${t.queue}', not '${opts.queue}'`);
    const payload = payloadToSend(RespondArgsSchema, { queue: t.queue, ...answer, by: this.by }, PAYLOAD_SHAPES.respond, 'respondEscalation');
    const result = await client.workflow.getHandle(t.workflowId).executeUpdate(respondEscalationUpdate, { args: [payload as import('../shared/contract').RespondArgs] });
    return { workflowId: t.workflowId, queue: t.queue, result };
  }

  /** No new model call, tool call or member starts while paused. */
  async pause(id: string): Promise<void> {
    const client = await this.temporalClient();
    await this.refuseEnded(client, id, 'pause');
    const { pauseSignal } = await import('../shared/definitions');
    await client.workflow.getHandle(id).signal(pauseSignal);
  }

  async resume(id: string): Promise<void> {
    const client = await this.temporalClient();
    await this.refuseEnded(client, id, 'resume');
    const { resumeSignal } = await import('../shared/definitions');
    await client.workflow.getHandle(id).signal(resumeSignal);
  }

  /** Request Temporal cancellation of the run. */
  async cancel(id: string): Promise<void> {
    const client = await this.temporalClient();
    await this.refuseEnded(client, id, 'cancel');
    await client.workflow.getHandle(id).cancel();
  }

  /**
   * One message to the running chat session `sessionId` (`loom send`); resolves to its reply. An
   * empty message is refused before anything is sent; a session that has ended is a RunEndedError.
   */
  async send(sessionId: string, text: string): Promise<SessionReply> {
    const { SESSION_MESSAGE_SHAPE, SessionMessageSchema, sessionMessageUpdate } = await import('../shared/session');
    const { payloadToSend } = await import('../operator/payloads');
    const message = payloadToSend(SessionMessageSchema, { text }, SESSION_MESSAGE_SHAPE, 'sessionMessage');
    const client = await this.temporalClient();
    await this.refuseEnded(client, sessionId, 'send to');
    return client.workflow.getHandle(sessionId).executeUpdate(sessionMessageUpdate, { args: [message] });
  }

  /**
   * Wait for the run and return its output (an ephemeral run's kept output is collected, once, as
   * `loom result` does). A failed run is a RunFailedError with the failure chain in words.
   */
  async result(id: string): Promise<JsonValue> {
    const client = await this.temporalClient();
    const { WorkflowFailedError } = await import('@temporalio/client');
    let result: any;
    try {
      result = await client.workflow.getHandle(id).result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const { describeFailure } = await import('../operator/progress');
        throw new RunFailedError(id, describeFailure(err));
      }
      throw err;
    }
    const output = (result?.output ?? result) as JsonValue;
    const { ephemeralOutputRef } = await import('../activities/ephemeral');
    if (!ephemeralOutputRef(output)) return output;
    const { collectOutput } = await import('../operator/run-flow');
    const kept = await collectOutput(id);
    if (!kept) throw new RunError(`${id} is an ephemeral run and its output is no longer in the store: it was already collected (by loom run or loom result), or not collected within LOOM_EPHEMERAL_PICKUP_HOURS and purged`);
    return kept.output as JsonValue;
  }

  /**
   * One message to a chat session of `agent`: the session `opts.session` names, started with its
   * first message when none runs under that id (update-with-start), or a new one. Resolves to the
   * reply and the session id (pass it as `session` to continue). An empty message is refused
   * before anything compiles or connects; an agent that cannot run as a session is a SessionStartError.
   */
  async chat(agent: string, message: string, opts: ChatOptions = {}): Promise<ChatAnswer> {
    const text = await this.sessionMessage(message);
    const prepared = await this.prepareChat(agent, opts);
    const { sendSessionMessage } = await import('../operator/sessions');
    const reply = await sendSessionMessage(await this.temporalClient(), prepared, text, this.taskQueue);
    return { sessionId: prepared.sessionId, reply };
  }

  /**
   * Start the chat session of `agent` (or join the one running under `opts.session`) and keep it
   * for many messages: the agent is compiled once (`loom chat`). A message the session refuses is
   * Temporal's WorkflowUpdateFailedError (its cause says why).
   */
  async openChat(agent: string, opts: ChatOptions = {}): Promise<ChatSession> {
    const prepared = await this.prepareChat(agent, opts);
    const { sendSessionMessage, startOrJoinSession } = await import('../operator/sessions');
    const { joined } = await startOrJoinSession(await this.temporalClient(), prepared, this.taskQueue);
    return {
      sessionId: prepared.sessionId, agent, joined, idleTimeoutSeconds: prepared.input.idle_timeout_seconds,
      send: async (message) => sendSessionMessage(await this.temporalClient(), prepared, await this.sessionMessage(message), this.taskQueue),
    };
  }

  /** The message as the session takes it (a UsageError with the expected shape otherwise). */
  private async sessionMessage(text: string): Promise<string> {
    const { SESSION_MESSAGE_SHAPE, SessionMessageSchema } = await import('../shared/session');
    const { payloadToSend } = await import('../operator/payloads');
    return payloadToSend(SessionMessageSchema, { text }, SESSION_MESSAGE_SHAPE, 'sessionMessage').text;
  }

  private async prepareChat(agent: string, opts: ChatOptions) {
    const { prepareSession } = await import('../operator/sessions');
    const { session, registry, actorId, idleTimeoutSeconds, ...rest } = opts;
    if (idleTimeoutSeconds !== undefined && !(Number.isFinite(idleTimeoutSeconds) && idleTimeoutSeconds > 0)) throw new SessionStartError(`idleTimeoutSeconds must be a positive number of seconds (got ${idleTimeoutSeconds})`);
    return prepareSession(agent, registry ?? this.registry, {
      sessionId: session, actorId, idleTimeoutSeconds, ...(Object.keys(rest).length ? { options: rest } : {}),
    });
  }

  /**
   * The model's text as it arrives, until the run ends: what `loom run --stream` prints, read from
   * the store record the model activity writes (the run must be started with `stream: true`).
   */
  async *stream(id: string): AsyncGenerator<string, void, undefined> {
    const client = await this.temporalClient();
    const { watchStreamText } = await import('../operator/progress');
    const { openBlobStore } = await import('../activities/blob-store');
    const chunks: string[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const watcher = watchStreamText(openBlobStore(), id, (text) => { chunks.push(text); wake?.(); });
    const handle: WorkflowHandle = client.workflow.getHandle(id);
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

  /**
   * The form an external UI renders for `agentId` (the Agent Definition Specification's `ui`,
   * `ui_hints` and `localization`): display name, description and one field per input property, in
   * `locale` (falling back to `default_locale`). No server needed. A definition that does not
   * compile, or is not in the registry, is a DefinitionError.
   */
  async describeAgent(agentId: string, opts: { locale?: string; registry?: string } = {}): Promise<import('../compiler/ui').Form> {
    const dir = opts.registry ?? this.registry;
    const { compileBundle, formatDiagnostic, loadRegistry } = await import('../compiler');
    const { describeForm } = await import('../compiler/ui');
    // The form is only worth showing for a definition that compiles (ui errors included).
    const errors = compileBundle(dir, agentId).diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d));
    if (errors.length) throw new DefinitionError(`${agentId} does not compile:\n${errors.join('\n')}`, errors);
    const data = loadRegistry(dir).entries.agent.get(agentId)?.src?.data;
    if (!data) throw new DefinitionError(`no agent ${agentId} in ${dir}`);
    return describeForm(data, opts.locale);
  }

  /**
   * The topology of `agentId` compiled from the registry, in Mermaid (default) or Graphviz dot; with
   * `run`, the nodes where that run is now, those it finished and those it failed at are marked (from
   * its status query). A definition that does not compile is a DefinitionError; a run of another
   * agent an AgentMismatchError.
   */
  async diagram(agentId: string, opts: { format?: import('../compiler/diagram').DiagramFormat; run?: string; registry?: string } = {}): Promise<string> {
    const dir = opts.registry ?? this.registry;
    const { compileBundle, formatDiagnostic } = await import('../compiler');
    const { bundleDiagram, renderDiagram, runMarks } = await import('../compiler/diagram');
    await (await import('../mcp/discover')).pinMcpServers(dir);
    let status: import('../shared/contract').RunStatus | undefined;
    if (opts.run !== undefined) {
      const { statusQuery } = await import('../shared/definitions');
      status = await (await this.temporalClient()).workflow.getHandle(opts.run).query(statusQuery);
      if (status.agent_id !== agentId) throw new AgentMismatchError(opts.run, status.agent_id, agentId);
    }
    const { bundle, diagnostics } = compileBundle(dir, agentId);
    if (!bundle) {
      const errors = diagnostics.filter((x) => x.severity === 'error').map((d) => formatDiagnostic(d));
      throw new DefinitionError(`${agentId} does not compile:\n${errors.join('\n')}`, errors);
    }
    return renderDiagram(bundleDiagram(bundle), opts.format ?? 'mermaid', status ? runMarks(bundle.agents[bundle.root], status) : undefined);
  }

  /** The open runs waiting on a human queue (escalation target `human_queue`), from visibility; with `queue`, only those waiting on it. */
  async escalations(filter: { queue?: string } = {}): Promise<EscalationSummary[]> {
    const client = await this.temporalClient();
    const { statusQuery } = await import('../shared/definitions');
    const parts = [`${SEARCH_ATTRIBUTES.status} = 'waiting_for_human'`, `ExecutionStatus = 'Running'`];
    if (filter.queue) parts.push(`${SEARCH_ATTRIBUTES.escalationQueue} = ${quote(filter.queue)}`);
    const rows: EscalationSummary[] = [];
    for await (const wf of client.workflow.list({ query: parts.join(' AND ') })) {
      const sa = (wf.searchAttributes ?? {}) as Record<string, unknown[]>;
      let status: RunStatus | undefined;
      try { status = await client.workflow.getHandle(wf.workflowId, wf.runId).query(statusQuery); } catch { status = undefined; }
      rows.push({
        workflow_id: wf.workflowId,
        type: wf.type,
        queue: status?.escalation?.queue ?? String(sa[SEARCH_ATTRIBUTES.escalationQueue]?.[0] ?? ''),
        reason: status?.escalation?.reason,
        since: status?.escalation?.since,
        agent_id: String(sa[SEARCH_ATTRIBUTES.agentId]?.[0] ?? status?.agent_id ?? ''),
      });
    }
    return rows;
  }

  /**
   * Remove run `id` and its state: every run of the workflow id (a chain of continue-as-new runs,
   * earlier executions reusing the id) and every run of its member workflows (`<id>/…`), each by run
   * id. An open run is a RunStillOpenError unless `force` (it is terminated first); an unknown id a
   * WorkflowNotFoundError. Temporal deletes asynchronously: resolves once the run no longer
   * resolves (`removed`), or after `timeoutMs` (default 120 s) with `removed: false`.
   */
  async delete(id: string, opts: { force?: boolean; timeoutMs?: number } = {}): Promise<DeleteResult> {
    const client = await this.temporalClient();
    const { WorkflowNotFoundError } = await import('@temporalio/client');
    const handle = client.workflow.getHandle(id);
    const desc = await handle.describe();
    if (desc.status.name === 'RUNNING') {
      if (!opts.force) throw new RunStillOpenError(id);
      await handle.terminate('deleted with force');
    }
    const list = async (query: string): Promise<{ workflowId: string; runId?: string }[]> => {
      const out: { workflowId: string; runId?: string }[] = [];
      try {
        for await (const wf of client.workflow.list({ query })) out.push({ workflowId: wf.workflowId, runId: wf.runId });
      } catch {
        // Visibility stores without STARTS_WITH: what was found is still deleted.
      }
      return out;
    };
    // Every run of the id (visibility lists each execution), the latest described one included even
    // if visibility has not caught up yet.
    const own = await list(`WorkflowId = ${quote(id)}`);
    if (!own.some((e) => e.runId === desc.runId)) own.push({ workflowId: id, runId: desc.runId });
    // Member runs: child workflow ids are `<parent>/<role>`, every run of each.
    const members = await list(`WorkflowId STARTS_WITH ${quote(id + '/')}`);
    const namespace = client.options.namespace;
    for (const e of [...members, ...own.reverse()]) {
      try {
        await client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId: e.workflowId, runId: e.runId } });
      } catch (err) {
        // A run already gone is fine; failing to delete the described run is not.
        if (e.workflowId === id && e.runId === desc.runId) throw err;
      }
    }
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      try {
        await handle.describe();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { runs: own.length, members: members.length, removed: true };
        throw err;
      }
      if (Date.now() > deadline) return { runs: own.length, members: members.length, removed: false };
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** As the CLI's run-control: a run that has ended is refused with how it ended. */
  private async refuseEnded(client: Client, id: string, action: string): Promise<void> {
    const { endedAs } = await import('../operator/run-control');
    const desc = await client.workflow.getHandle(id).describe();
    const how = endedAs(desc);
    if (how) throw new RunEndedError(`run ${id} is ${how}: nothing to ${action}`);
  }
}
