/**
 * The package's `/worker` entry (`@agentloom/core/worker`): AgentloomPlugin for a user's own
 * `Worker.create({ plugins })`, the ready-made worker (createAgentloomWorker, what `worker.ts`
 * runs), the worker runtime's log level, the workflow bundles, and the connection settings.
 */
export { AgentloomPlugin, withAgentloomWorkflows } from '../plugin/agentloom-plugin';
export type { AgentloomPluginOptions, PolicyModules } from '../plugin/agentloom-plugin';
export { AgentloomClientPlugin, agentloomDataConverter } from '../plugin/client-plugin';
export { defineTool, toolFile, executorWithTools } from '../plugin/define-tool';
export type { AgentloomTool, ToolDefinition } from '../plugin/define-tool';
export type { ExternalToolContext } from '../activities/react-tools';
export { createAgentloomWorker, installWorkerRuntime, workerLogLevel, WORKER_TUNING } from './create-worker';
export type { AgentloomWorkerOptions } from './create-worker';
export { AGENTLOOM_WORKFLOWS_PATH, workflowSource } from '../plugin/workflow-source';
export { bundleLoomWorkflows, sealedBundlePath, writeBundle } from '../plugin/bundle';
export { createActivities } from '../activities';
export type { ActivityDeps } from '../activities';
export type { Provider, ProviderRequest, ProviderReply } from '../activities/provider';
export type { ExternalToolExecutor } from '../activities/react-tools';
export { openBlobStore } from '../activities/blob-store';
export type { BlobStore } from '../activities/blob-store';
export { AgentTracing } from '../telemetry/tracing';
export { loadTemporalConfig, describeConnection } from '../connection/config';
