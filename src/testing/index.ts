/**
 * The package's `/testing` entry (`@agentloom/core/testing`): what a user's tests need to run
 * agents without a model provider — the scripted model (a `provider: scripted` model's replies,
 * chosen by rules), a local OpenAI-compatible server on 127.0.0.1 (`startFakeOpenAI`, scriptable
 * replies, tool calls, errors, streams and embeddings, every request recorded), and the Temporal dev
 * server Agentloom's own tests and `loom dev` run.
 */
export { scriptedProvider, scriptedChunks } from '../activities/model';
export { selectScriptedReply, materializeReply, scriptedUsage } from '../runtime/scripted';
export type { ScriptedContext, ScriptedResult } from '../runtime/scripted';
export type { ScriptedModelConfig, ScriptedReply, ScriptedRule, ScriptedToolCall } from '../compiled/types';
export * from './openai-server';
export { startDevServer, freePort } from '../platform/temporal-dev-server';
export type { DevServer, DevServerOptions } from '../platform/temporal-dev-server';
