/**
 * `loom chat`: compile the agent, store the bundle, and start its session workflow (or join a
 * running one); a message is sent with update-with-start, so the first one starts the session.
 */
import { randomBytes } from 'crypto';
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import type { CompiledAgent, Diagnostic } from '../compiled/types';
import type { RunOptions } from '../shared/contract';
import { DEFAULT_TASK_QUEUE, SEARCH_ATTRIBUTES } from '../shared/names';
import { patternOf, workflowTypeFor } from '../shared/dispatch';
import { DEFAULT_IDLE_TIMEOUT_SECONDS, SESSION_WORKFLOW_TYPE, sessionMessageUpdate } from '../shared/session';
import type { SessionInput, SessionReply } from '../shared/session';
import { SESSION_ID } from '../activities/session-history';
import { openBlobStore, storeBundle } from '../activities/blob-store';
import { SessionStartError } from './errors';

export { SessionStartError };

export interface PreparedSession {
  root: CompiledAgent;
  sessionId: string;
  input: SessionInput & { idle_timeout_seconds: number };
}

export async function prepareSession(agentId: string, registry: string, o: { sessionId?: string; actorId?: string; idleTimeoutSeconds?: number; options?: RunOptions }): Promise<PreparedSession> {
  if (o.sessionId !== undefined && !SESSION_ID.test(o.sessionId)) {
    throw new SessionStartError(`--session must be letters, digits, '.', '_', ':' or '-' (up to 128 characters), e.g. --session support-42 (got '${o.sessionId}')`);
  }
  const { compileBundle, formatDiagnostic } = await import('../compiler');
  await (await import('../mcp/discover')).pinMcpServers(registry);
  const { bundle, diagnostics } = compileBundle(registry, agentId);
  const errors = diagnostics.filter((d: Diagnostic) => d.severity === 'error');
  if (!bundle || errors.length) throw new SessionStartError(`${agentId} does not compile:\n${(errors.length ? errors : diagnostics).map((d: Diagnostic) => formatDiagnostic(d)).join('\n')}`);
  const root = bundle.agents[agentId];
  if (!workflowTypeFor(root)) throw new SessionStartError(`${agentId} uses ${patternOf(root)}, which this runtime does not implement`);
  const ref = await storeBundle(openBlobStore(), bundle);
  const sessionId = o.sessionId ?? `${agentId}-chat-${randomBytes(4).toString('hex')}`;
  return {
    root, sessionId,
    input: { bundle: ref, agent_id: agentId, ...(o.actorId ? { actor_id: o.actorId } : {}), idle_timeout_seconds: o.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS, ...(o.options ? { options: o.options } : {}) },
  };
}

/** How the session workflow is started under the session id (on `taskQueue`: an AgentloomClient's queue, else LOOM_TASK_QUEUE, else the default). */
function startOptions(p: Pick<PreparedSession, 'root' | 'sessionId' | 'input'>, taskQueue?: string): WorkflowStartOptions & { args: [SessionInput] } {
  return {
    taskQueue: taskQueue ?? process.env.LOOM_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    workflowId: p.sessionId,
    args: [p.input],
    staticSummary: `chat session with ${p.root.agent_id} v${p.root.version}`,
    searchAttributes: {
      [SEARCH_ATTRIBUTES.agentId]: [p.root.agent_id],
      [SEARCH_ATTRIBUTES.agentVersion]: [p.root.version],
      [SEARCH_ATTRIBUTES.pattern]: ['session'],
      [SEARCH_ATTRIBUTES.status]: ['running'],
    },
  };
}

/**
 * Send one message with update-with-start: one request that starts the session when none runs
 * under its id (the first message starts it) and otherwise delivers the message to the running one
 * (workflowIdConflictPolicy USE_EXISTING). Returns the reply.
 */
export async function sendSessionMessage(client: Client, p: Pick<PreparedSession, 'root' | 'sessionId' | 'input'>, text: string, taskQueue?: string): Promise<SessionReply> {
  const { WithStartWorkflowOperation } = await import('@temporalio/client');
  const startWorkflowOperation = new WithStartWorkflowOperation(SESSION_WORKFLOW_TYPE, { ...startOptions(p, taskQueue), workflowIdConflictPolicy: 'USE_EXISTING' });
  return client.workflow.executeUpdateWithStart(sessionMessageUpdate, { args: [{ text }], startWorkflowOperation });
}

/** Start the session workflow under the session id; a session already running under it is joined. */
export async function startOrJoinSession(client: Client, p: PreparedSession, taskQueue?: string): Promise<{ handle: WorkflowHandle; joined: boolean }> {
  const { WorkflowExecutionAlreadyStartedError } = await import('@temporalio/client');
  try {
    const handle = await client.workflow.start(SESSION_WORKFLOW_TYPE, startOptions(p, taskQueue));
    return { handle, joined: false };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { handle: client.workflow.getHandle(p.sessionId), joined: true };
  }
}
