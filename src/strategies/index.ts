/** fuseraft's strategies, pure core (no Temporal, no I/O): config types, the validator, the routing
 * family's routers, termination, validators/contracts and merges. Explicit re-exports only. */
export type {
  StrategyConfig, SelectionConfig, SelectionType, RoutingType, RouteConfig, StructuredRouteConfig, StructuredCondition,
  StateMachineConfig, StateConfig, TransitionConfig, HandoffContextEntry, MergeConfig, MergeStrategy, GraphConfig,
  GraphNodeConfig, GraphEdgeConfig, SubGraphSpec, ScatterGatherConfig, MapReduceConfig, ModelRef, MagenticConfig,
  AdversarialConfig, AdversarialStageConfig, TerminationConfig, TerminationType, ContractConfig, ContractRequirement,
  ValidatorName, TurnEvidence, Turn, Position, Decision, SpeakDecision, SubGraphDecision, FanOutBranch, FanOutDecision,
  ApprovalDecision, EscalationDecision, StopDecision, StopOutcome, FailureKind, FailureAction, FailureHandlingConfig,
} from './types';
export { FAILURE_KINDS, FAILURE_ACTIONS, SELECTION_TYPES, ROUTING_TYPES, MERGE_STRATEGIES, TERMINATION_TYPES, BUILTIN_VALIDATORS, STRUCTURED_OPERATORS, CONTRACT_REQUIREMENTS } from './types';
export { validateStrategyConfig, formatPath, closestName } from './validate';
export type { StrategyProblem, StrategyPath, ValidateOptions } from './validate';
export { createRouter, decide, isRoutingType } from './router';
export type { RouterState } from './router';
export { STUCK_LIMIT, replay } from './core';
export type { Router, Step, FailureState } from './core';
export { sequentialRouter, roundRobinRouter, structuredRouter, defaultAgentOf } from './selection';
export { keywordRouter, isTerminalRoute } from './keyword-routing';
export { stateMachineRouter, isTerminalState, reachableStates, RECOVERY_AFTER } from './statemachine';
export type { StateMachineState } from './statemachine';
export { keywordGraphRouter, graphLayers, entryNodeOf, fanOutGroup, fanOutJoin, DEFAULT_MAX_RETRIES, EDGE_RECOVERY_AFTER } from './keyword-graph';
export type { GraphState, EdgeKind } from './keyword-graph';
export { detectKeywords, lineMatches, normalizeKeyword, resolveHandoff, signalsOf, sameKeyword } from './keywords';
export type { MatchMode } from './keywords';
export { extractJsonObject, resolveField, evaluateCondition, conditionOperator } from './json';
export { checkTermination, checkTerminationAfter, iterationsOf } from './termination';
export type { TerminationResult } from './termination';
export { runValidator, runValidators, validatorsOf, evaluateContract, evaluateContracts, contractNamesOf, commandMatches, BRIEF_FILE, TEST_REPORT_FILE } from './evidence';
export type { Check, ValidatorOptions } from './evidence';
export { mergeBranches, unionText, finalStatement } from './merge';
export type { BranchOutput, MergeResult } from './merge';
export { classifyFailure, evidenceKind, handleFailure, auditMessage, actionFor } from './failure';
export type { FailureOutcome } from './failure';
