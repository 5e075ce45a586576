/**
 * fuseraft's strategies configuration, typed field for field with fuseraft's PascalCase
 * keys as printed (`Selection`, `Routes`, `StateMachine`, `Graph`, `Termination`, `Contracts`, …),
 * plus the small transcript and decision types the pure selection functions share. Types only:
 * what a config *means* is in the modules next to this one, what it may *contain* in validate.ts.
 */

/** Every `Selection.Type` of fuseraft. The routing family (one speaker per turn) comes first. */
export const SELECTION_TYPES = [
  'sequential', 'roundrobin', 'keyword', 'structured', 'statemachine', 'graph',
  'scattergather', 'mapreduce', 'llm', 'magentic', 'adversarial',
] as const;
export type SelectionType = (typeof SELECTION_TYPES)[number];
/** Strategies whose next speaker is picked by src/strategies; the others are phase-driven. */
export const ROUTING_TYPES = ['sequential', 'roundrobin', 'keyword', 'structured', 'statemachine', 'graph'] as const;
export type RoutingType = (typeof ROUTING_TYPES)[number];

/** The orchestration block the strategies read: fuseraft's "Orchestration" minus its Agents list. */
export interface StrategyConfig {
  Selection: SelectionConfig;
  Termination?: TerminationConfig;
  /** fuseraft's "Orchestration.Contracts": named evidence contracts used by state-machine transitions. */
  Contracts?: ContractConfig[];
  /** fuseraft's FailureHandling policy: the response to each classified failure type (failure.ts). */
  FailureHandling?: FailureHandlingConfig;
  /** fuseraft's Verifier meta-agent (statemachine): the agent that audits on ConflictingEvidence or NoProgress. */
  Verifier?: string;
  /** Kept in a compiled config only when an entry has a `Context` spec (context-spec.ts). */
  Agents?: (string | AgentConfigEntry)[];
}

/** One Orchestration `Agents` entry: a name, or fuseraft's AgentConfig `{Name, Context}`; the agent file defines the rest. */
export interface AgentConfigEntry { Name: string; Context?: HandoffContextEntry[] }

/**
 * The failure types a refused turn is classified as (fuseraft's "classified failure type"; it names
 * ConflictingEvidence and NoProgress, the rest name the refusals its routing already describes).
 */
export const FAILURE_KINDS = ['MissingSignal', 'AmbiguousSignal', 'UnauthorizedSignal', 'MissingEvidence', 'ConflictingEvidence', 'NoProgress'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];
/** fuseraft's responses: "correction injection, audit request, HITL escalation", plus stopping the run at once. */
export const FAILURE_ACTIONS = ['correction', 'audit', 'escalate', 'stop'] as const;
export type FailureAction = (typeof FAILURE_ACTIONS)[number];
/** `FailureHandling: {NoProgress: escalate, ConflictingEvidence: audit}`; a type not listed gets `correction`. */
export type FailureHandlingConfig = Partial<Record<FailureKind, FailureAction>>;

export interface SelectionConfig {
  Type: SelectionType;
  /** keyword/structured: the agent that speaks when no route fires (default: the first agent). */
  DefaultAgent?: string;
  Routes?: RouteConfig[];
  StructuredRoutes?: StructuredRouteConfig[];
  StateMachine?: StateMachineConfig;
  Graph?: GraphConfig;
  ScatterGather?: ScatterGatherConfig;
  MapReduce?: MapReduceConfig;
  /** llm: the selection model. */
  Model?: ModelRef;
  /** llm: custom prompt with {{$agents}} and {{$history}}. */
  Prompt?: string;
  Magentic?: MagenticConfig;
  Adversarial?: AdversarialConfig;
}

/** fuseraft's "Route fields". */
export interface RouteConfig {
  Keyword: string;
  Agent: string;
  Validator?: string;
  Validators?: string[];
  SourceAgents?: string[];
  RequiredCommandPattern?: string;
  RequireHumanApproval?: boolean;
}

/** fuseraft's "StructuredRoute fields". */
export interface StructuredRouteConfig {
  Agent: string;
  Condition: StructuredCondition;
  SourceAgents?: string[];
}

/** fuseraft's "Condition operators": exactly one operator should be set; they are evaluated in this order. */
export interface StructuredCondition {
  Field: string;
  Is?: string;
  IsNot?: string;
  Contains?: string;
  Exists?: boolean;
}
/**
 * fuseraft's structured-route operators. Not the Agent Format's ConditionGroup operators
 * (src/shared/condition-operators.ts: eq, ne, gt, …): fuseraft compares a field's string value
 * case-insensitively and names its operators Is/IsNot/Contains/Exists, so the two languages keep
 * their own operator lists over the one path walker (src/shared/json.ts valueAt).
 */
export const STRUCTURED_OPERATORS = ['Is', 'IsNot', 'Contains', 'Exists'] as const;

/** fuseraft's "StateMachineConfig fields". */
export interface StateMachineConfig {
  Initial: string;
  States: Record<string, StateConfig>;
}

/** fuseraft's "StateConfig fields". */
export interface StateConfig {
  Agent: string;
  Transitions?: TransitionConfig[];
  Terminal?: boolean;
}

/** fuseraft's "TransitionConfig fields". */
export interface TransitionConfig {
  To: string;
  Signal?: string;
  Contract?: string;
  Contracts?: string[];
  SourceAgents?: string[];
  MaxRevisits?: number;
  ReviewArtifactPath?: string;
  HandoffContext?: HandoffContextEntry[];
  RecoveryAgent?: string;
  Parallel?: boolean;
  Targets?: string[];
  Merge?: MergeConfig;
}

/** One `HandoffContext` entry: `Source` is session_context, changes_recent[:N], brief_field:FIELD or file:PATH. */
export interface HandoffContextEntry {
  Source: string;
  MaxChars?: number;
  Label?: string;
}

export const MERGE_STRATEGIES = ['union', 'consensus', 'vote', 'ranked', 'semantic_diff'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];
/** fuseraft's "MergeConfig fields". */
export interface MergeConfig {
  Strategy?: MergeStrategy;
  Agent?: string;
  ConflictResolution?: MergeStrategy[];
}

/** fuseraft's "GraphConfig fields". */
export interface GraphConfig {
  EntryNode?: string;
  Nodes: GraphNodeConfig[];
  Edges: GraphEdgeConfig[];
  MaxRetries?: number;
  SubGraphs?: Record<string, SubGraphSpec>;
}

/** fuseraft's "GraphNodeConfig fields". */
export interface GraphNodeConfig {
  Id: string;
  Agent?: string;
  SubGraphId?: string;
  Terminal?: boolean;
  Parallel?: boolean;
  Validators?: string[];
}

/** fuseraft's "GraphEdgeConfig fields". */
export interface GraphEdgeConfig {
  From: string;
  To: string;
  Keyword?: string;
  Validator?: string;
  Validators?: string[];
  SourceAgents?: string[];
  RequiredCommandPattern?: string;
  ShellFallbackPattern?: string;
  RequireHumanApproval?: boolean;
  RecoveryAgent?: string;
}

/** fuseraft's "SubGraphSpec": exactly one of the three. */
export interface SubGraphSpec {
  Graph?: GraphConfig;
  MapReduce?: MapReduceConfig;
  ScatterGather?: ScatterGatherConfig;
}

/** fuseraft's "ScatterGatherConfig fields". */
export interface ScatterGatherConfig {
  Participants: string[];
  Synthesizer: string;
  MaxConcurrency?: number;
}

/** fuseraft's "MapReduceConfig fields". */
export interface MapReduceConfig {
  Splitter: string;
  Mapper: string;
  Reducer: string;
  ItemsJsonPath?: string;
  MaxConcurrency?: number;
  MaxSplitterRetries?: number;
}

/** llm/magentic `Model`: "string or object" (`ModelId: gpt-4o`). */
export type ModelRef = string | { ModelId: string };

/** fuseraft's "MagenticManagerConfig fields". */
export interface MagenticConfig {
  Model: ModelRef;
  Instructions?: string;
  MaxRoundCount?: number;
  MaxStallCount?: number;
  MaxResetCount?: number;
  EnablePlanReview?: boolean;
}

/** fuseraft's "AdversarialConfig fields". */
export interface AdversarialConfig {
  Stages: AdversarialStageConfig[];
  Rounds?: number;
  PassKeyword?: string;
}
/** fuseraft's "AdversarialStageConfig fields". */
export interface AdversarialStageConfig {
  Generator: string;
  Critic: string;
  Label?: string;
}

export const TERMINATION_TYPES = ['regex', 'maxiterations', 'composite'] as const;
export type TerminationType = (typeof TERMINATION_TYPES)[number];
/** fuseraft's "Termination strategies": one shape, fields by Type; `MaxIterations` is a hard cap on every type. */
export interface TerminationConfig {
  Type: TerminationType;
  Pattern?: string;
  AgentNames?: string[];
  MaxIterations?: number;
  Strategies?: TerminationConfig[];
}

/** fuseraft's "Orchestration.Contracts" entry. */
export interface ContractConfig {
  Name: string;
  Requires: ContractRequirement[];
}
/** One requirement: an object with exactly one of these keys. */
export interface ContractRequirement {
  /** Every path in the JSON array at `Field` of the JSON file `Source` has been written. */
  FilesWritten?: { Source: string; Field: string };
  /** A shell command exited 0 this turn and contains the command read from `PatternField` of the brief (or of `Source`). */
  CommandSucceeded?: { PatternField: string; Source?: string };
}
export const CONTRACT_REQUIREMENTS = ['FilesWritten', 'CommandSucceeded'] as const;

/** Built-in validators: fuseraft's table plus RequireReviewJudgement, which its examples use. */
export const BUILTIN_VALIDATORS = ['RequireBrief', 'RequireWriteFile', 'RequireAllFilesWritten', 'RequireShellPass', 'TestReportValid', 'RequireReviewJudgement'] as const;
export type ValidatorName = (typeof BUILTIN_VALIDATORS)[number];

// ---- the conversation ---------------------------------------------------------------------

/** What the runtime observed during one agent turn: the evidence validators and contracts read. */
export interface TurnEvidence {
  /** Paths this turn wrote with write_file (recorded from the real calls, never from the text). */
  writes?: string[];
  /** Shell commands this turn ran, with their exit codes (and the end of their output, for corrections). */
  shell?: { command: string; exitCode: number; outputTail?: string }[];
  /** Paths written in earlier turns (the run's changes.json change log). */
  changes?: string[];
  /** Contents of artifact files the runtime read after the turn; null = the file does not exist.
   * Built-in validators read `brief.json` and `test-report.json`; contracts read their `Source`. */
  files?: Record<string, string | null>;
}

/** One entry of the shared transcript. */
export interface Turn {
  /** The agent that spoke (for a sub-graph node: the agent whose terminal output this is). */
  agent: string;
  text: string;
  /** `route_keyword` of a `handoff(route_keyword)` call made this turn: used instead of scanning. */
  handoff?: string;
  evidence?: TurnEvidence;
  /** The operator's answer, when the strategy asked for route approval after this turn. */
  routeApproval?: 'approved' | 'rejected';
  /** The operator's answer, when the strategy escalated this turn's failure (FailureHandling `escalate`). */
  escalation?: { decision: 'approved' | 'rejected'; reason?: string };
  /** `agent` (default) turns are routed and counted; `context` entries (merged branch output,
   * handoff context, corrections) are history only. */
  kind?: 'agent' | 'context';
}

/** Where the run is: the state (statemachine) or node (graph) the next speaker belongs to. */
export type Position = string;

/** What to do next: one strategy answer type for the whole routing family. */
export type Decision =
  | SpeakDecision
  | SubGraphDecision
  | FanOutDecision
  | ApprovalDecision
  | EscalationDecision
  | StopDecision;

export interface SpeakDecision {
  kind: 'speak';
  agent: string;
  /** Why this agent: e.g. `route "HANDOFF TO TESTER" from Developer`, `no keyword: DefaultAgent`. */
  reason: string;
  position?: Position;
  /** Injected into the shared history before this agent's turn: a correction, nudge, "route
   * blocked", escalation or recovery diagnostic. */
  message?: string;
  /** The keyword/signal that fired, when one did. */
  keyword?: string;
  /** graph: the edge that fired was a back-edge (the current phase breaks and restarts here). */
  backEdge?: boolean;
  /** statemachine: context sources to inject for the receiving agent (fuseraft's HandoffContext). */
  handoffContext?: HandoffContextEntry[];
  /** statemachine MaxRevisits escalation: the artifact listing the reviewer's objections. */
  reviewArtifactPath?: string;
  /** This turn is a one-off intervention (RecoveryAgent): its signals are not evaluated. */
  recovery?: boolean;
  /** The classified failure this agent is re-invoked (or the DefaultAgent called) after. */
  failure?: FailureKind;
}

export interface SubGraphDecision {
  kind: 'subgraph';
  subGraphId: string;
  spec: SubGraphSpec;
  position: Position;
  reason: string;
  message?: string;
  keyword?: string;
  backEdge?: boolean;
}

export interface FanOutBranch { position: Position; agent?: string; subGraphId?: string }
export interface FanOutDecision {
  kind: 'fanout';
  /** Run concurrently, each one turn on an isolated snapshot of the history so far. */
  branches: FanOutBranch[];
  /** Merge the branch outputs (merge.ts), inject them as one context entry, then this speaks. */
  join: { position: Position; agent?: string; subGraphId?: string };
  merge: MergeConfig;
  reason: string;
  keyword?: string;
  handoffContext?: HandoffContextEntry[];
}

export interface ApprovalDecision {
  kind: 'approval';
  /** The agent whose turn triggered the route. */
  source: string;
  keyword: string;
  /** The agent or state/node the route would activate. */
  target: string;
  reason: string;
}

/**
 * FailureHandling `escalate`: the failed turn waits for the operator. Like an approval, the state is
 * unchanged: call `next` again with the same turn carrying `escalation` (approved: the agent is
 * re-invoked with the counter reset; rejected: the run stops).
 */
export interface EscalationDecision {
  kind: 'escalation';
  /** The agent whose turn failed. */
  agent: string;
  failure: FailureKind;
  /** What failed, as the correction would say it. */
  what: string;
  reason: string;
}

export type StopOutcome = 'complete' | 'terminal' | 'terminated' | 'stuck' | 'failed';
export interface StopDecision {
  kind: 'stop';
  /** complete: sequential pass done; terminal: a terminal route/node ended the session;
   * terminated: a Termination strategy fired; stuck: consecutive failures reached the limit (fuseraft's ValidatorStuckException); failed: a
   * configuration the validator should have refused. */
  outcome: StopOutcome;
  reason: string;
  keyword?: string;
}
