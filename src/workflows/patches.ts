/**
 * Every `patched()` id of the workflow code, in one registry (as sdk-typescript keeps its SDK flags
 * in packages/workflow/src/flags.ts): a named constant with the commit and date that brought it.
 * Workflow code calls `patched(PATCHES.name.id)`, never a string, so an id cannot be mistyped and
 * `test/compat/patch-coverage.unit.test.ts` checks each entry has recorded histories of both sides.
 *
 * Support window: a patch stays while a supported version can still have runs in flight. The
 * oldest supported version is the one in test/compat/landed-version's history that the replay
 * guard replays (CONTRIBUTING.md). A patch whose `since` is older than every version still
 * supported moves to `deprecatePatch(PATCHES.name.id)` (Temporal's procedure: samples-typescript's
 * patching-api), then its old branch is removed once no run recorded before the deprecation can
 * be replayed. None is old enough yet: the oldest entry dates from 2026-11-23.
 *
 * The wire ids never change: running workflows and recorded histories hold them as markers.
 */
export interface PatchEntry {
  /** The marker id in the history. */
  id: string;
  /** The commit that brought the patch. */
  since: string;
  date: string;
}

export const PATCHES = {
  /** an agf.react run started with its agent view in the start input (RunAgentInput.agent_view, as AgentloomClient starts one) takes it instead of running loadAgent; asked only by runs that carry a view. */
  agentViewInStartInput: { id: 'agent-view-in-start-input', since: '8dced76', date: '2026-11-27' },
  /** an approval that times out with on_approval_timeout: escalate goes to a human queue and keeps waiting. */
  approvalTimeoutEscalate: { id: 'approval-timeout-escalate', since: 'bc4ab18', date: '2026-11-23' },
  /** the approval timers (tool calls, delegations, memory writebacks) carry a summary naming the call they time out. */
  approvalTimerSummary: { id: 'approval-timer-summary', since: '1e0ed95', date: '2026-11-26' },
  /** a react run whose agent enables artifacts saves them as it ends. */
  artifactsSave: { id: 'artifacts-save', since: 'bb7ba11', date: '2026-11-23' },
  /** audit events are written in chunks, and before continue-as-new. */
  auditEventsInChunks: { id: 'audit-events-in-chunks', since: 'fe7f84a', date: '2026-11-25' },
  /** an agf.batch shard continues as new when Temporal suggests it. */
  batchShardContinueAsNew: { id: 'batch-shard-continue-as-new', since: '91e54d5', date: '2026-11-23' },
  /** a member input its contract refuses fails the orchestrator (MemberInputInvalid, not retried). */
  contractOrchestrator: { id: 'contract-orchestrator', since: '80177b0', date: '2026-11-23' },
  /** a delegation call waits for approval under policies.require_human_approval. */
  delegateApproval: { id: 'delegate-approval', since: '69e778f', date: '2026-11-23' },
  /** an agent with can_delegate and delegates gets the delegation tool. */
  delegateTool: { id: 'delegate-tool', since: '5d1696b', date: '2026-11-23' },
  /** a root run of a retention_class: ephemeral agent deletes what it stored as it ends. */
  ephemeralRun: { id: 'ephemeral-run', since: '254da8d', date: '2026-11-25' },
  /** a graph with back edges ignores them when choosing the next nodes. */
  graphBackEdges: { id: 'graph-back-edges', since: '1852b4b', date: '2026-11-23' },
  /** a node revisited with reset_on_revisit: false continues its stored conversation. */
  graphRevisitConversation: { id: 'graph-revisit-conversation', since: '3d5908f', date: '2026-11-23' },
  /** a graph whose remaining nodes cannot start fails instead of waiting. */
  graphStallFails: { id: 'graph-stall-fails', since: '1852b4b', date: '2026-11-23' },
  /** graph messages are carried by reference to the store. */
  graphTranscript: { id: 'graph-transcript', since: '3d5908f', date: '2026-11-23' },
  /** corrected arguments of an approval go through the tool_input guardrails. */
  guardCorrectedArgs: { id: 'guard-corrected-args', since: '1b49ba5', date: '2026-11-23' },
  /** agents that declare guardrails (or a model_decision rule) run them as activities. */
  guardrails: { id: 'guardrails', since: '9ff5851', date: '2026-11-23' },
  /** single-turn members run inline as activities of the orchestrator. */
  inlineSingleTurnMembers: { id: 'inline-single-turn-members', since: 'e803788', date: '2026-11-23' },
  /** an inline member's model turn is issued and handled with no await in between (fewer workflow promises), and the members share their agent's first load. */
  leanInlineMembers: { id: 'lean-inline-members', since: 'adf8549', date: '2026-11-27' },
  /** orchestrator root runs read and write memory. */
  memoryOrchestrator: { id: 'memory-orchestrator', since: 'fb79f47', date: '2026-11-25' },
  /** agf.react root runs read and write memory. */
  memoryReact: { id: 'memory-react', since: 'b6e6634', date: '2026-11-25' },
  /** a model call that fails for good falls back to runtime.fallback_model. */
  modelFailureFallback: { id: 'model-failure-fallback', since: '38b5b9a', date: '2026-11-23' },
  /** node_timeout bounds the member's whole execution, continue-as-new included. */
  nodeTimeoutExecution: { id: 'node-timeout-execution', since: '1852b4b', date: '2026-11-23' },
  /** orchestrators check their input and output contracts. */
  orchestratorContract: { id: 'orchestrator-contract', since: 'b48fe7b', date: '2026-11-25' },
  /** a paused run waits at a checkpoint before continuing as new. */
  pauseBeforeContinueAsNew: { id: 'pause-before-continue-as-new', since: '4bb8add', date: '2026-11-23' },
  /** phase strategies continue as new, carrying their state. */
  phasesContinueAsNew: { id: 'phases-continue-as-new', since: '6b8eb7a', date: '2026-11-25' },
  /** the phases of a strategy share one workspace. */
  phasesWorkspace: { id: 'phases-workspace', since: '6d7e1f2', date: '2026-11-25' },
  /** steps are referred to by their alias. */
  stepsByAlias: { id: 'steps-by-alias', since: '1852b4b', date: '2026-11-23' },
  /** strategies gather evidence for their contracts. */
  strategiesEvidence: { id: 'strategies-evidence', since: '985b24f', date: '2026-11-23' },
  /** a routing-strategy member turn that is one model call runs inline as model-turn activities of the strategy's workflow. */
  strategiesMembersInline: { id: 'strategies-members-inline', since: 'ba6bf24', date: '2026-11-26' },
  /** a strategy review reads its artifact. */
  strategiesReviewArtifact: { id: 'strategies-review-artifact', since: '5b1dc24', date: '2026-11-23' },
  /** a strategy transcript is kept in the store, the history holding its head. */
  strategiesTranscriptStore: { id: 'strategies-transcript-store', since: 'c96ca6b', date: '2026-11-23' },
  /** a failed transform sets the run's status before failing. */
  transformFailureStatus: { id: 'transform-failure-status', since: '2faefc6', date: '2026-11-23' },
  /** members report their pending decisions to their parent. */
  treePendingDecisions: { id: 'tree-pending-decisions', since: '422f8d1', date: '2026-11-23' },
  /** a chat message's turn runs inside the session when it is one model call, and the exchange is recorded by the next turn's input activity. */
  sessionTurnsInline: { id: 'session-turns-inline', since: 'dbc0719', date: '2026-11-26' },
  /** a signal payload that does not fit its schema becomes a run warning. */
  validatedSignalPayloads: { id: 'validated-signal-payloads', since: '64eee47', date: '2026-11-26' },
  /** the other timers an operator meets (run deadline, member execution_timeout, graph execution_timeout, the decide update's wait) carry a summary. */
  waitTimerSummary: { id: 'wait-timer-summary', since: 'adacc45', date: '2026-11-26' },
} as const satisfies Record<string, PatchEntry>;

export type PatchName = keyof typeof PATCHES;
