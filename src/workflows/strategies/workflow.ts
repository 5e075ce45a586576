/**
 * fuseraft's routing strategies (sequential, roundrobin, keyword, structured, statemachine, keyword
 * graph with Graph sub-graphs) as one Temporal workflow: a shared conversation where one agent
 * speaks per turn. Each turn is one member run (an agfReactWorkflow child, its own react loop,
 * tools and approvals; a turn that is one model call runs inline, member-turn.ts) whose input
 * is the task plus the conversation so far; the pure router of
 * src/strategies picks what happens next (speak, fan out, run a sub-graph, ask for route approval,
 * stop) and Termination is checked after every agent turn. The conversation is kept as a bounded
 * window (strategies-transcript.ts): in the content-addressed store for runs started on patch
 * `strategies-transcript-store` (history and the continue-as-new carry hold its head ref; each
 * member reads its first message by reference), carried in the workflow for older runs.
 * Route approval (`RequireHumanApproval`) waits for `approveCall`/`rejectCall` (call id
 * `route-<n>`), shown in status as a pending approval; pause/resume come from the run shell.
 * Runs started on patch `strategies-evidence` share one workspace across members; each turn's
 * evidence (real write_file/shell records, artifact files) is gathered for validators and
 * contracts, and HandoffContext blocks are injected (strategies-evidence.ts).
 */
import { condition, patched, setHandler } from '@temporalio/workflow';
import type { JsonObject, JsonValue, StrategiesPattern } from '../../compiled/types';
import type { AgentRunResult, ApproveArgs, BlobRef, PendingApproval, RejectArgs, RunAgentInput, RunStatus } from '../../shared/contract';
import { ApproveArgsSchema, PAYLOAD_SHAPES, RejectArgsSchema } from '../../shared/contract';
import { approveSignal, approveUpdate, rejectSignal, rejectUpdate } from '../../shared/definitions';
import { hadCallId, signalPayload, validatedPayload } from '../shell/payloads';
import { WORKFLOW_TYPES } from '../../shared/dispatch';
import { textOf } from '../../shared/expr';
import { checkTerminationAfter, createRouter, isRoutingType, keywordGraphRouter, mergeBranches, SELECTION_TYPES, unionText } from '../../strategies';
import type { BranchOutput, Decision, GraphConfig, HandoffContextEntry, Router, RouterState, StrategyConfig, Turn } from '../../strategies';
import { OrchestratorRun } from '../orchestrator';
import { isExecutedPhaseType } from '../../strategies/phases';
import { runPhaseStrategy, runPhaseSubGraph } from './phases';
import { failureMessage } from '../shell/failures';
import { HANDOFF_TOOL, handoffTool, memberInput, Transcript, TranscriptState } from './transcript';
import type { MemberInputSpec } from '../../strategies/transcript';
import type { RebuildRequest } from '../../strategies/compaction';
import type { StateMachineState } from '../../strategies/statemachine';
import { contextPlan, contextSpecOf, contextSpecText, contextView } from '../../strategies/context-spec';
import { RunEvidence, type EvidenceState } from './evidence';
import { PATCHES } from '../patches';
import { historyFull } from '../shell/continue-as-new';
import { runMemberTurn } from './member-turn';

/** What continue-as-new carries (beside the shell's usage, warnings and pause). */
interface Carried {
  router: RouterState;
  decision: Decision;
  iterations: number;
  approvals: number;
  transcript: TranscriptState;
  turns: Record<string, number>;
  last_output: JsonValue;
  routes: RouteLog[];
  /** The shared workspace of runs started on patch strategies-evidence. */
  evidence?: EvidenceState;
}
/** `failure`: the classified failure type the speaker is re-invoked after. */
interface RouteLog { iteration: number; agent: string; position?: string; reason: string; keyword?: string; failure?: string }

/** The shell plus the pending route approval (status shows it like a pending tool call). */
class StrategiesRun extends OrchestratorRun {
  pending: PendingApproval | undefined;
  private answer: { decision: 'approved' | 'rejected'; reason?: string; by?: string } | undefined;

  constructor(input: RunAgentInput) {
    super(input, 'strategies');
    const approve = (a: ApproveArgs): string => {
      this.answer = { decision: 'approved', by: a.by };
      return `route ${a.call_id} approved`;
    };
    const reject = (a: RejectArgs): string => {
      this.answer = { decision: 'rejected', reason: a.reason, by: a.by };
      return `route ${a.call_id} rejected`;
    };
    const known = (id: string | undefined): void => {
      if (!this.pending) throw new Error('no route is waiting for approval');
      if (id !== this.pending.call_id) throw new Error(`unknown call id '${id}'; the route waiting for approval is ${this.pending.call_id}`);
    };
    setHandler(approveUpdate, approve, { validator: (raw: unknown) => known(validatedPayload(ApproveArgsSchema, raw, PAYLOAD_SHAPES.approve, 'approveCall').call_id) });
    setHandler(rejectUpdate, reject, { validator: (raw: unknown) => known(validatedPayload(RejectArgsSchema, raw, PAYLOAD_SHAPES.reject, 'rejectCall').call_id) });
    // A signal cannot be refused: a payload that does not fit only adds a run warning.
    const warn = (m: string): void => this.warn(m);
    setHandler(approveSignal, (raw) => {
      const a = signalPayload(ApproveArgsSchema, raw, PAYLOAD_SHAPES.approve, 'approve', warn, hadCallId);
      if (!a) return;
      if (this.pending && a.call_id === this.pending.call_id) approve(a);
      else this.warn(`approve signal for unknown call '${a.call_id}' ignored`);
    });
    setHandler(rejectSignal, (raw) => {
      const a = signalPayload(RejectArgsSchema, raw, PAYLOAD_SHAPES.reject, 'reject', warn, hadCallId);
      if (!a) return;
      if (this.pending && a.call_id === this.pending.call_id) reject(a);
      else this.warn(`reject signal for unknown call '${a.call_id}' ignored`);
    });
  }

  /** The route waiting for approval, beside the run's memory writebacks (which wait only after the routes are done). */
  protected override ownApprovals(): PendingApproval[] {
    return [...super.ownApprovals(), ...(this.pending ? [this.pending] : [])];
  }

  override snapshot(): RunStatus {
    const s = super.snapshot();
    if (!this.pending || s.state !== 'running') return s;
    return { ...s, state: 'waiting_for_approval', pending_approvals: [{ ...this.pending }] };
  }

  /** Wait durably for the operator's answer on route approval `callId` (tool `route`), or on a failure escalation (tool `escalation`). */
  async askRoute(callId: string, args: JsonObject, reason: string, tool: 'route' | 'escalation' = 'route'): Promise<{ decision: 'approved' | 'rejected'; reason?: string; by?: string }> {
    this.pending = { call_id: callId, tool, arguments: args, reason, requested_at: new Date().toISOString() };
    this.answer = undefined;
    this.details(`waiting for ${tool === 'route' ? 'route approval' : 'the operator (failure escalation)'} ${callId}: ${reason}`);
    this.decisionsChanged();
    await condition(() => this.answer !== undefined);
    const a = this.answer!;
    this.pending = undefined;
    this.answer = undefined;
    this.decisionsChanged();
    return a;
  }
}

/** A turn that ends the conversation loop of one (sub-)graph or the whole run. */
type Ended = { stop: Extract<Decision, { kind: 'stop' }>; last?: Turn };

/**
 * One conversation: the carried state, the transcript and the member turns, driven by a router
 * until it stops (the top level may continue-as-new; sub-graphs reuse `drive` one level down).
 */
class Conversation {
  private readonly transcript: Transcript;
  private readonly usesHandoff: boolean;
  private readonly historyLimit: number | undefined;
  private readonly now: { speaker?: string; position?: string; signal?: string } = {};

  constructor(
    private readonly run: StrategiesRun,
    private readonly input: RunAgentInput,
    private readonly config: StrategyConfig,
    private readonly type: string,
    private readonly c: Carried,
    private readonly agentIdOf: (name: string) => string,
    private readonly evidence?: RunEvidence,
  ) {
    this.transcript = new Transcript(c.transcript);
    this.usesHandoff = ['keyword', 'statemachine', 'graph'].includes(type);
    this.historyLimit = input.options?.scale?.loop_history_events;
  }

  /** Status progress: speaker, position, last signal, transcript size and the last routes. */
  report(speaker = this.now.speaker, position = this.now.position, lastSignal = this.now.signal): void {
    Object.assign(this.now, { speaker, position, signal: lastSignal });
    const { run, c } = this;
    run.status.step = c.iterations;
    run.status.turn = c.iterations;
    run.status.progress = {
      strategy: this.type,
      iteration: c.iterations,
      ...(speaker ? { speaker } : {}),
      ...(position ? { position } : {}),
      ...(lastSignal ? { last_signal: lastSignal } : {}),
      transcript_entries: this.transcript.size,
      routes: c.routes.slice(-10) as unknown as JsonValue,
    } as JsonObject;
  }

  private logRoute(d: { agent?: string; position?: string; reason: string; keyword?: string; failure?: string }): void {
    const c = this.c;
    c.routes = [...c.routes, { iteration: c.iterations, agent: d.agent ?? '', reason: d.reason, ...(d.position ? { position: d.position } : {}), ...(d.keyword ? { keyword: d.keyword } : {}), ...(d.failure ? { failure: d.failure } : {}) }].slice(-10);
  }

  /** The context block of `name`'s next turn (counts the turn). */
  private contextFor(name: string, extra: { position?: string; branch?: boolean }): JsonObject {
    const c = this.c;
    c.turns[name] = (c.turns[name] ?? 0) + 1;
    return {
      // your_turn last: a scripted test model can match `"your_turn": N` followed by a newline.
      strategy: { type: this.type, speaker: name, iteration: c.iterations + 1, ...(extra.position ? { position: extra.position } : {}), ...(extra.branch ? { parallel_branch: true } : {}), your_turn: c.turns[name] },
    };
  }

  /** Store mode: the first messages of these member turns, written from the stored transcript by one activity. */
  private async storedInputs(members: { name: string; context: JsonObject; extra?: string; contextSpec?: MemberInputSpec['context_spec'] }[], summary: string): Promise<BlobRef[]> {
    const specs = members.map((m) => ({ agent_id: this.agentIdOf(m.name), context: m.context, ...(m.extra ? { extra: m.extra } : {}), ...(m.contextSpec ? { context_spec: m.contextSpec } : {}) }));
    return this.transcript.memberInputs(this.input.bundle, this.input.input, specs, summary, this.compactionRebuild());
  }

  /**
   * fuseraft's lossless compaction (state machine only, and only with the shared workspace whose
   * evidence log is the EvidenceStore): what the member-input activity needs to rebuild the
   * context once the window omits entries. It changes that activity's input, never a command.
   */
  private compactionRebuild(): RebuildRequest | undefined {
    if (this.type !== 'statemachine' || !this.evidence) return undefined;
    const sm = this.c.router as Partial<StateMachineState>;
    return {
      workspace: this.evidence.workspace,
      ...(typeof sm.current === 'string' ? { position: sm.current } : {}),
      ...(sm.fired ? { fired: sm.fired } : {}),
      ...(sm.contractFailures ? { contract_failures: sm.contractFailures } : {}),
      routes: this.c.routes.map((r) => ({ iteration: r.iteration, agent: r.agent, reason: r.reason, ...(r.failure ? { failure: r.failure } : {}) })),
    };
  }

  /**
   * One member run: the agent `name` speaks (or answers as a branch / merge agent). Store mode: its
   * first message is `inputRef` (fan-out) or written now; the child input holds the task and the ref.
   */
  private async speakTurn(
    name: string,
    role: string,
    extra: { position?: string; message?: string; branch?: boolean; snapshot?: string; inputRef?: BlobRef; context?: JsonObject; route?: string } = {},
  ): Promise<{ turn: Turn; result: AgentRunResult }> {
    const { run, c } = this;
    const context = extra.context ?? this.contextFor(name, extra);
    const where = `turn ${c.iterations + 1}: ${name}${extra.position ? ` at ${extra.position}` : ''}`;
    run.details(where);
    // fuseraft's agent Context spec: its sources and own turns instead of the shared window (branches and merges excepted).
    const spec = extra.branch ? undefined : contextSpecOf(this.config.Agents, name);
    const contextSpec = spec ? await this.contextSpecInput(name, spec) : undefined;
    const inputRef = extra.inputRef ?? (this.transcript.inStore ? (await this.storedInputs([{ name, context, contextSpec }], `${where}: input`))[0] : undefined);
    const inline = contextSpec
      ? contextSpecText(textOf(this.input.input), name, contextSpec.sources, contextView([...this.transcript.entries()].reverse(), name, contextSpec.own), contextSpec.own !== undefined)
      : undefined;
    let res: AgentRunResult;
    try {
      res = await runMemberTurn(run, {
        agent_id: this.agentIdOf(name),
        input: inputRef ? this.input.input : extra.snapshot ?? inline ?? memberInput(this.input.input, this.transcript),
        role,
        workflowType: WORKFLOW_TYPES['agf.react'],
        // Web UI: who speaks (agent id), where, and the route taken.
        summary: `${where} (${this.agentIdOf(name)})${extra.route ? `, route: ${extra.route}` : ''}`,
        options: {
          ...(inputRef ? { input_ref: inputRef } : { context }), ...(this.usesHandoff && !extra.branch ? { extra_tools: [handoffTool()] } : {}),
          ...(this.evidence ? { workspace: this.evidence.workspace } : {}),
        },
      });
    } catch (err) {
      this.report(name, extra.position);
      throw run.fail(`strategy agent '${name}' (${this.agentIdOf(name)}) failed: ${failureMessage(err)}`, 'NodeFailed', run.status.progress);
    }
    const call = res.terminal_tool_call;
    const handoff = call?.name === HANDOFF_TOOL && typeof call.arguments.route_keyword === 'string' ? call.arguments.route_keyword : undefined;
    // What the member's tools really did (validators and contracts read it; branches are not evaluated).
    const evidence = extra.branch ? undefined : await this.evidence?.ofTurn(role);
    return { turn: { agent: name, text: textOf(res.output), ...(handoff !== undefined ? { handoff } : {}), ...(evidence ? { evidence } : {}) }, result: res };
  }

  /** What an agent Context spec gives the member: its artifact sources (read now, from the workspace) and its own-history setting. */
  private async contextSpecInput(name: string, spec: HandoffContextEntry[]): Promise<NonNullable<MemberInputSpec['context_spec']>> {
    const plan = contextPlan(spec);
    const sources = plan.sources.length ? (this.evidence ? await this.evidence.contextSources(plan.sources, name) : `[Context sources for ${name}]\n(this run has no shared workspace to read them from)`) : undefined;
    return { agent: name, ...(plan.own ? { own: plan.own } : {}), ...(sources !== undefined ? { sources } : {}) };
  }

  /** fuseraft's HandoffContext: the transition's sources, read from the workspace, as the latest history entry. */
  private async injectHandoffContext(entries: HandoffContextEntry[] | undefined, toAgent: string): Promise<void> {
    if (!entries?.length || !this.evidence) return;
    this.transcript.add('orchestrator', await this.evidence.handoff(entries, toAgent), 'context');
  }

  /** After every agent turn: count it, record it, check Termination. */
  private afterTurn(turn: Turn, output: JsonValue): Ended | undefined {
    const c = this.c;
    c.iterations += 1;
    c.last_output = output;
    this.transcript.add(turn.agent, turn.text, 'agent');
    const t = checkTerminationAfter(this.config.Termination, turn, c.iterations);
    return t.stop ? { stop: { kind: 'stop', outcome: 'terminated', reason: `${t.strategy}: ${t.reason}` }, last: turn } : undefined;
  }

  /** The top level continues-as-new when Temporal suggests it (or past the scale option). */
  private async maybeContinueAsNew(decision: Decision): Promise<void> {
    if (historyFull(this.historyLimit) && decision.kind !== 'stop') {
      this.c.transcript = this.transcript.state();
      await this.run.continueAsNew({ strategies: this.c as unknown as JsonObject });
    }
  }

  /**
   * Drive one router until it stops. `graph` is the GraphConfig of this level (sub-graph lookups
   * for a fan-out join); `top` levels carry their state in `c` and may continue-as-new.
   */
  async drive(r: Router<RouterState>, state: RouterState, decision: Decision, graph: GraphConfig | undefined, top: boolean, prefix: string): Promise<Ended> {
    const c = this.c;
    let last: Turn | undefined;
    for (;;) {
      if (top) { c.router = state; c.decision = decision; }
      if (top) await this.maybeContinueAsNew(decision);
      await this.run.checkpoint();
      let turn: Turn;
      let output: JsonValue;
      switch (decision.kind) {
        case 'stop':
          return { stop: decision, last };
        case 'approval':
          // Only `next` returns approvals (handled below); a carried one cannot be answered without its turn.
          return { stop: { kind: 'stop', outcome: 'failed', reason: `route approval for "${decision.keyword}" without the turn that asked for it` }, last };
        case 'escalation':
          return { stop: { kind: 'stop', outcome: 'failed', reason: `failure escalation of ${decision.agent} without the turn that asked for it` }, last };
        case 'speak': {
          if (decision.message) this.transcript.add('orchestrator', decision.message, 'context');
          await this.injectHandoffContext(decision.handoffContext, decision.agent);
          this.logRoute(decision);
          this.report(decision.agent, decision.position, decision.keyword);
          const s = await this.speakTurn(decision.agent, `${prefix}turn-${c.iterations + 1}-${decision.agent}`, { position: decision.position, route: decision.reason });
          turn = s.turn;
          output = s.result.output;
          break;
        }
        case 'subgraph': {
          const sub = await this.subGraphTurn(decision, prefix);
          if ('stop' in sub) return sub.stop === undefined ? { stop: { kind: 'stop', outcome: 'failed', reason: sub.reason }, last } : sub;
          // Its terminal output is the node's turn (already counted and in the transcript).
          last = sub.turn;
          const step = r.next(state, sub.turn);
          state = step.state;
          decision = step.decision;
          continue;
        }
        case 'fanout':
          decision = await this.fanOut(decision, graph, prefix);
          continue;
      }
      last = turn;
      const ended = this.afterTurn(turn, output);
      if (ended) return ended;
      const step = await this.nextWithApprovals(r, state, turn);
      state = step.state;
      decision = step.decision;
    }
  }

  /**
   * The router's next step; a route that needs approval, or a failure FailureHandling escalates
   * (call id `failure-<n>`: approve lets the agent go on, reject stops the run), waits for the
   * operator's answer first.
   */
  private async nextWithApprovals(r: Router<RouterState>, state: RouterState, turn: Turn): Promise<{ state: RouterState; decision: Decision }> {
    let step = r.next(state, turn);
    for (;;) {
      const d = step.decision;
      if (d.kind === 'approval') {
        this.c.approvals += 1;
        const callId = `route-${this.c.approvals}`;
        this.report(d.source, undefined, d.keyword);
        const answer = await this.run.askRoute(callId, { keyword: d.keyword, from: d.source, to: d.target }, d.reason);
        if (answer.decision === 'rejected' && answer.reason) this.transcript.add('orchestrator', `Route "${d.keyword}" rejected by the operator: ${answer.reason}`, 'context');
        turn = { ...turn, routeApproval: answer.decision };
      } else if (d.kind === 'escalation') {
        this.c.approvals += 1;
        const callId = `failure-${this.c.approvals}`;
        this.logRoute({ agent: d.agent, reason: d.reason });
        this.report(d.agent);
        const answer = await this.run.askRoute(callId, { failure: d.failure, agent: d.agent, what: d.what }, d.reason, 'escalation');
        turn = { ...turn, escalation: { decision: answer.decision, ...(answer.reason ? { reason: answer.reason } : {}) } };
      } else return step;
      step = r.next(state, turn);
    }
  }

  /** A sub-graph node: its terminal turn, or how it ended the conversation. */
  private async subGraphTurn(decision: Extract<Decision, { kind: 'subgraph' }>, prefix: string): Promise<{ turn: Turn } | Ended | { stop: undefined; reason: string }> {
    if (decision.message) this.transcript.add('orchestrator', decision.message, 'context');
    this.logRoute({ agent: `sub-graph ${decision.subGraphId}`, position: decision.position, reason: decision.reason, keyword: decision.keyword });
    const sub = await this.runSubGraph(decision.subGraphId, decision.spec, `${prefix}${decision.position}-`);
    if (!sub.last) return { stop: undefined, reason: `sub-graph ${decision.subGraphId} ended without a turn (${sub.stop.reason})` };
    if (sub.stop.outcome === 'stuck' || sub.stop.outcome === 'failed' || sub.stop.outcome === 'terminated') return sub;
    return { turn: sub.last };
  }

  /** Parallel branches on one transcript snapshot, merged (by a merge agent if the strategy says so); returns the join. */
  private async fanOut(decision: Extract<Decision, { kind: 'fanout' }>, graph: GraphConfig | undefined, prefix: string): Promise<Decision> {
    const c = this.c;
    this.logRoute({ agent: decision.branches.map((b) => b.agent ?? b.subGraphId).join(', '), reason: decision.reason, keyword: decision.keyword });
    this.report(decision.branches.map((b) => b.agent ?? `sub-graph ${b.subGraphId}`).join(', '), decision.join.position, decision.keyword);
    await this.injectHandoffContext(decision.handoffContext, decision.branches.map((b) => b.agent ?? b.position).join(', '));
    const stored = this.transcript.inStore;
    const snapshot = stored ? '' : memberInput(this.input.input, this.transcript);
    const base = c.iterations;
    // Sub-graph branches (SubGraphId, no Agent) fork the conversation as it is now, before any branch speaks.
    const forks = decision.branches.map((b) => (b.agent ? undefined : this.fork()));
    const speakers = decision.branches.flatMap((b, i) => (b.agent ? [{ b, i, agent: b.agent }] : []));
    // Store mode: every agent branch's first message from one snapshot of the stored transcript, one activity.
    const contexts = new Map<number, JsonObject>();
    const refs = new Map<number, BlobRef>();
    if (stored && speakers.length) {
      for (const s of speakers) contexts.set(s.i, this.contextFor(s.agent, { position: s.b.position, branch: true }));
      const got = await this.storedInputs(speakers.map((s) => ({ name: s.agent, context: contexts.get(s.i)! })), `fan-out ${speakers.map((s) => `${s.agent} at ${s.b.position}`).join(', ')}: inputs`);
      speakers.forEach((s, k) => refs.set(s.i, got[k]));
    }
    const results = await Promise.all(decision.branches.map(async (b, i): Promise<{ turn: Turn; turns: number }> => {
      const role = `${prefix}turn-${base + 1}-branch-${i}-${b.position}`;
      if (!b.agent) return this.subGraphBranch(forks[i]!, b.subGraphId ?? '', graph, `${role}-`);
      const x = await this.speakTurn(b.agent, role, stored ? { position: b.position, branch: true, inputRef: refs.get(i), context: contexts.get(i), route: 'parallel branch' } : { position: b.position, branch: true, snapshot });
      return { turn: x.turn, turns: 1 };
    }));
    const outputs: BranchOutput[] = results.map((x, i) => ({ position: decision.branches[i].position, agent: x.turn.agent, text: x.turn.text }));
    c.iterations += results.reduce((n, x) => n + x.turns, 0);
    const merged = mergeBranches(outputs, decision.merge);
    let text: string;
    // The header names the strategy that decided (and any that did not), so a fallback is visible.
    let how: string;
    if (merged.kind === 'agent') {
      const mergeRole = `${prefix}turn-${c.iterations}-merge-${merged.agent}`;
      let m: { turn: Turn; result: AgentRunResult };
      if (stored) {
        const context = this.contextFor(merged.agent, { branch: true });
        const [inputRef] = await this.storedInputs([{ name: merged.agent, context, extra: `# Merge\n${merged.prompt}` }], `merge by ${merged.agent}: input`);
        m = await this.speakTurn(merged.agent, mergeRole, { branch: true, inputRef, context, route: 'merge' });
      } else m = await this.speakTurn(merged.agent, mergeRole, { snapshot: `${snapshot}\n\n# Merge\n${merged.prompt}`, branch: true });
      text = m.turn.text.trim();
      how = `${merged.strategy} by ${merged.agent}`;
      if (!text) {
        // fuseraft's ConflictResolution: the agent reached no decision; the rest of the chain decides (no second merge agent).
        const fb = mergeBranches(outputs, merged.fallback);
        const decided = fb.kind === 'merged' ? fb : { strategy: 'union', text: unionText(outputs), note: undefined };
        text = decided.text;
        how = `${decided.strategy}; ${how} gave no output${decided.note ? `, ${decided.note}` : ''}`;
      }
    } else {
      text = merged.text;
      how = `${merged.strategy}${merged.note ? `; ${merged.note}` : ''}`;
    }
    this.transcript.add('orchestrator', `[Merged output of ${decision.branches.map((b) => b.position).join(', ')} (${how})]\n${text}`, 'context');
    const j = decision.join;
    const spec = j.subGraphId ? graph?.SubGraphs?.[j.subGraphId] : undefined;
    return j.subGraphId
      ? spec ? { kind: 'subgraph', subGraphId: j.subGraphId, spec, position: j.position, reason: `join after fan-out` } : { kind: 'stop', outcome: 'failed', reason: `join sub-graph ${j.subGraphId} is not declared` }
      : { kind: 'speak', agent: j.agent ?? '', position: j.position, reason: `join ${j.position} after fan-out` };
  }

  /**
   * A copy of this conversation as it is now (transcript, turn counts, evidence workspace) for a
   * sub-graph fan-out branch: the branch's turns go to the copy, never to this transcript, so
   * concurrent branches do not see each other (a stored transcript forks its append-only chain).
   */
  private fork(): Conversation {
    const c: Carried = { ...this.c, transcript: this.transcript.state(), turns: { ...this.c.turns }, routes: [...this.c.routes] };
    return new Conversation(this.run, this.input, this.config, this.type, c, this.agentIdOf, this.evidence);
  }

  /**
   * A `Parallel` fan-out branch whose node has a SubGraphId: the nested Graph / MapReduce /
   * ScatterGather runs on the fork `f`, its members named under `prefix`; its terminal turn is the
   * branch output for the merge, as a `SubGraphId` node's is. A sub-graph that fails or gets stuck fails the run;
   * one stopped by Termination gives its last turn.
   */
  private async subGraphBranch(f: Conversation, id: string, graph: GraphConfig | undefined, prefix: string): Promise<{ turn: Turn; turns: number }> {
    const spec = graph?.SubGraphs?.[id];
    if (!spec) throw this.run.fail(`parallel branch sub-graph ${id} is not declared in SubGraphs`, 'StrategyFailed', this.run.status.progress);
    const before = f.c.iterations;
    const ended = await f.runSubGraph(id, spec, prefix);
    const o = ended.stop.outcome;
    if (!ended.last || o === 'failed' || o === 'stuck') {
      throw this.run.fail(`parallel branch sub-graph ${id} ${ended.last ? `ended ${o}` : 'ended without a turn'}: ${ended.stop.reason}`, o === 'stuck' ? 'ValidatorStuck' : 'StrategyFailed', this.run.status.progress);
    }
    return { turn: ended.last, turns: f.c.iterations - before };
  }

  private async runSubGraph(id: string, spec: { Graph?: GraphConfig; MapReduce?: unknown; ScatterGather?: unknown }, prefix: string): Promise<Ended> {
    if (!spec.Graph) {
      // MapReduce / ScatterGather (strategies-phases.ts): its terminal reply is this node's turn, counted and recorded like an agent's.
      const r = await runPhaseSubGraph(this.run, this.input, this.agentIdOf, id, spec as Parameters<typeof runPhaseSubGraph>[4], memberInput(this.input.input, this.transcript), prefix, this.evidence?.workspace);
      const turn: Turn = { agent: r.agent, text: r.text };
      // fuseraft: "all its messages are streamed to the parent session", then its terminal reply is the node's turn.
      for (const m of r.messages ?? []) this.transcript.add(m.agent, m.text, 'agent');
      return this.afterTurn(turn, r.output) ?? { stop: { kind: 'stop', outcome: 'complete', reason: `sub-graph ${id} gave its terminal output` }, last: turn };
    }
    const sr = keywordGraphRouter(spec.Graph, this.config.FailureHandling) as Router<RouterState>;
    const s = sr.start();
    return this.drive(sr, s.state, s.decision, spec.Graph, false, prefix);
  }
}

export async function strategiesWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new StrategiesRun(input);
  const agent = await run.init();
  const pattern = agent.orchestration?.pattern as StrategiesPattern | undefined;
  if (!pattern || pattern.type !== 'strategies') throw run.fail(`agent '${agent.agent_id}' declares no strategies pattern`, 'WrongPattern');
  const config = pattern.config as unknown as StrategyConfig;
  const type = config.Selection?.Type;
  // Phase-driven strategies (scattergather, mapreduce, adversarial): strategies-phases.ts.
  if (isExecutedPhaseType(type)) return run.complete(await runPhaseStrategy(run, input, pattern, type));
  if (!type || !isRoutingType(type)) {
    // Every fuseraft type runs (phase-driven above, routing below); only a bundle the compiler did not check gets here.
    throw run.fail(`Selection.Type ${JSON.stringify(type ?? null)} is not a fuseraft selection type; write one of: ${SELECTION_TYPES.join(', ')}`, 'UnsupportedStrategy');
  }
  const names = pattern.agents.map((a) => a.name);
  const carried = (input.carried as { strategies?: Carried } | undefined)?.strategies;
  const router = createRouter(config, names);
  const first = carried ? undefined : router.start();
  const c: Carried = carried ?? {
    router: first!.state, decision: first!.decision, iterations: 0, approvals: 0,
    // The transcript's home is chosen once per run and carried (runs from before the patch keep theirs in the workflow).
    transcript: { window: [], omitted: 0, ...(patched(PATCHES.strategiesTranscriptStore.id) ? { stored: { head: null, size: 0 } } : {}) },
    turns: {}, last_output: null, routes: [],
  };
  const evidence = await RunEvidence.start(c.evidence, !carried, config, input.options?.workspace);
  if (evidence) c.evidence = evidence.state();
  else if (!carried && JSON.stringify(config).match(/"(Validators?|Contracts?|HandoffContext)"/)) {
    // Runs from before patch strategies-evidence (replayed) have no shared workspace.
    run.warn('validators, contracts and HandoffContext read evidence (write_file and shell records, artifact files) that this run does not collect (it started before patch strategies-evidence)');
  }
  const conversation = new Conversation(run, input, config, type, c, (name) => pattern.agents.find((a) => a.name === name)?.agent_id ?? name, evidence);
  const ended = await conversation.drive(router, c.router, c.decision, config.Selection.Graph, true, '');
  conversation.report(ended.last?.agent, undefined, ended.stop.keyword ?? undefined);
  const o = ended.stop.outcome;
  if (o === 'stuck') throw run.fail(ended.stop.reason, 'ValidatorStuck', run.status.progress);
  if (o === 'failed') throw run.fail(`strategy failed: ${ended.stop.reason}`, 'StrategyFailed', run.status.progress);
  run.status.progress = { ...(run.status.progress ?? {}), stopped: `${o}: ${ended.stop.reason}` };
  return run.complete(c.last_output);
}
