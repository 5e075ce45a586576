/**
 * The plain names of the runtime contract: the default task queue, the custom search attributes,
 * and the wire names of the signals, updates and queries. Constants only, importing nothing, so the
 * CLI's read commands (`loom list`, `inbox`, `status`) and the client reach them without loading
 * the payload schemas (zod) of ./contract, which re-exports every name here.
 */

/** Default task queue (override with LOOM_TASK_QUEUE). */
export const DEFAULT_TASK_QUEUE = 'agentloom';

/** Custom search attributes registered on the dev server and kept current by every run. */
export const SEARCH_ATTRIBUTES = {
  agentId: 'AgentId',
  agentVersion: 'AgentVersion',
  pattern: 'AgentPattern',
  status: 'AgentStatus',
  escalationQueue: 'EscalationQueue',
} as const;

/**
 * Wire names of the signals, updates and queries (never change them: running workflows and recorded
 * histories depend on them). Send them through the typed definitions in ./definitions
 * (approveUpdate, statusQuery, …), not by these strings.
 */
export const SIGNALS = {
  approve: 'approve',
  reject: 'reject',
  pause: 'pause',
  resume: 'resume',
  respond: 'respond',
  /** Member -> parent: the member's pending decisions subtree changed (DescendantDecisionsReport). */
  descendantDecisions: 'descendantDecisions',
  /** Model activity -> its own react run: a tool call complete in the streamed reply (StreamedCall; the Execution Loop specification). */
  callStreamed: 'callStreamed',
} as const;
export const UPDATES = {
  approve: 'approveCall',
  reject: 'rejectCall',
  respond: 'respondEscalation',
  /** At any run (the root): answer a decision pending anywhere in its tree (DecideArgs). */
  decide: 'decide',
} as const;
export const QUERIES = {
  status: 'status',
  /** The calls a react run took from the stream of one model turn (a retried model activity resumes from them). */
  streamedCalls: 'streamedCalls',
} as const;
