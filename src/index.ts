/**
 * The package's root entry (`@agentloom/core`): the client side of Agentloom — the compiler
 * (registry → immutable compiled bundle), AgentloomClient (what `loom` does, for an application),
 * starting runs and the typed signals, queries and updates
 * that drive them, the connection settings (Temporal's envconfig), and the client plugin that sets
 * the data converter. Nothing here loads the Temporal worker or the activities: a worker imports
 * `@agentloom/core/worker`, workflow code `@agentloom/core/workflows`, tests `@agentloom/core/testing`.
 */
export {
  compileBundle, compileFromRegistry, loadRegistry, validatePaths, validateRegistry, formatDiagnostic,
  sortDiagnostics, publishBundle, compareSemver, canonicalJson, sha256, BUNDLE_FORMAT, CODES, KIND_SCHEMAS,
} from './compiler';
export type { Registry, Entry, Kind, CodeRegistry } from './compiler';
export type { CompiledBundle, CompiledAgent, Diagnostic, JsonValue, JsonObject } from './compiled/types';
export { loadTemporalConfig, describeConnection } from './connection/config';
export type { ConnectionOverrides, TemporalConnectConfig } from './connection/config';
export { AgentloomClientPlugin, agentloomDataConverter } from './plugin/client-plugin';
export { defineTool, toolFile } from './plugin/define-tool';
export type { AgentloomTool, ToolDefinition } from './plugin/define-tool';
export type { DataConverterChoice } from './plugin/client-plugin';
export { loomDataConverter } from './codec/data-converter';
export { AesGcmPayloadCodec } from './codec/payload-codec';
export { codecKeysFromEnv, keysFrom } from './codec/keys';
export { prepareRun, startPrepared, newWorkflowId, RunError } from './operator/runs';
export type { PreparedRun } from './operator/runs';
export * from './shared/definitions';
export { DEFAULT_TASK_QUEUE, SEARCH_ATTRIBUTES, SIGNALS, UPDATES, QUERIES } from './shared/contract';
export type {
  BlobRef, RunAgentInput, RunOptions, AgentRunResult, RunState, RunStatus, PendingApproval, PendingDecision,
  ApproveArgs, RejectArgs, DecideArgs, RespondArgs, RespondResult,
} from './shared/contract';
export {
  AgentloomClient, RunEndedError, RunFailedError, SessionStartError, SessionRecordError, DefinitionError, AgentMismatchError,
  RunStillOpenError, NoRouteError, DispatchFailedError,
} from './client/agentloom-client';
export type {
  AgentloomClientOptions, AgentRef, StartOptions, RunStatusReport, InboxEntry, ConnectOptions, ConnectionInfo, RunStatusDetail,
  DecisionSent, ListFilter, RunSummary, EscalationSummary, DeleteResult, AgentForm, AgentFormField, DiagramFormat, SessionReply,
  RunProgress, RunCallOptions, RunOutcome, ChatOptions, ChatSession, ChatAnswer, DispatchRoute, DispatchAttempt, DispatchOptions,
  DispatchResult, RankedAgent, InboxFilter, InboxSnapshot,
} from './client/agentloom-client';
