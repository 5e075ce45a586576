/** Shared by `loom run` and `loom start`: compile, pick and check the input, store the bundle, start. */
import * as fs from 'fs';
import { createAjv } from '../compiler/ajv';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { randomBytes } from 'crypto';
import type { CompiledAgent, CompiledBundle, Diagnostic, JsonValue } from '../compiled/types';
import type { BlobRef, RunAgentInput, RunOptions } from '../shared/contract';
import { DEFAULT_TASK_QUEUE, SEARCH_ATTRIBUTES } from '../shared/names';
import { patternOf, workflowTypeFor } from '../shared/dispatch';
import { openBlobStore, storeBundle } from '../activities/blob-store';
import { fileInputErrors } from './file-inputs';
import { SessionState, SessionStore } from '../activities/session';
import { sessionPrompt, SESSION_ID } from '../activities/session-history';
import { renderUserPrompt } from '../runtime/template';
import { reactConfig } from '../runtime/agent-view';
import { lifecycleRefusal } from '../governance/lifecycle';
import { memoryUse } from '../runtime/memory';
import { isEphemeral } from '../runtime/artifacts';
import { deleteEphemeralWrites, markEphemeralRun } from '../activities/ephemeral';
import { MessageStore } from '../activities/message-store';
import { claimCheckable, depthRefusal, formatBytes, inputBytes, MAX_INLINE_INPUT_BYTES, sizeRefusal } from './input-limits';
import { RunError, UsageError } from './errors';

export interface PreparedRun {
  bundle: CompiledBundle;
  root: CompiledAgent;
  input: JsonValue;
  inputFromExample: boolean;
  workflowType: string;
  runInput: RunAgentInput;
  /** Set when the input was too large for history: stored, and the run reads it by reference (its size in bytes). */
  inputByReference?: number;
  /** `--session ID`: the session this run continues (recorded with recordSessionRun once it succeeds). */
  session?: { id: string; prev: SessionState; prompt: string; kept: number; dropped: number };
}

export { RunError };

export function parseInputFlag(raw: string | undefined): JsonValue | undefined {
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = fs.readFileSync(raw.slice(1), 'utf8');
    } catch (err) {
      throw new RunError(`--input ${raw}: cannot read ${raw.slice(1)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give a JSON file path after @ or inline JSON`);
    }
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    // A usage error (exit 2, with the usage line), like bad JSON in --args/--output.
    throw new UsageError(`--input is not valid JSON (${(err as Error).message}); write e.g. --input '{"question":"…"}' or --input @file.json`);
  }
}

/** Returns the schema errors of `input` against the agent's interface.input.schema (empty = valid). */
export function inputErrors(agent: CompiledAgent, input: JsonValue): string[] {
  const ajv = createAjv();
  const validate = ajv.compile(agent.interface.input.schema as object);
  if (validate(input)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(input)'} ${e.message ?? 'is invalid'}`);
}

/** `--approval-timeout SECONDS` and `--on-approval-timeout reject|escalate` → RunOptions. */
export function runOptionsFromFlags(approvalTimeout: string | undefined, onTimeout: string | undefined): RunOptions | undefined {
  const o: RunOptions = {};
  if (approvalTimeout !== undefined) {
    const n = Number(approvalTimeout);
    if (!Number.isFinite(n) || n <= 0) throw new RunError(`--approval-timeout must be a positive number of seconds, e.g. --approval-timeout 3600 (got '${approvalTimeout}')`);
    o.approval_timeout_seconds = n;
  }
  if (onTimeout !== undefined) {
    if (onTimeout !== 'reject' && onTimeout !== 'escalate') throw new RunError(`--on-approval-timeout must be 'reject' or 'escalate' (got '${onTimeout}')`);
    o.on_approval_timeout = onTimeout;
  }
  return Object.keys(o).length ? o : undefined;
}

export async function prepareRun(agentId: string, registry: string, rawInput: string | undefined, options?: RunOptions, sessionId?: string): Promise<PreparedRun> {
  const { compileBundle, formatDiagnostic } = await import('../compiler');
  await (await import('../mcp/discover')).pinMcpServers(registry); // MCP tool schemas pinned into the bundle
  const { bundle, diagnostics } = compileBundle(registry, agentId);
  const errors = diagnostics.filter((d: Diagnostic) => d.severity === 'error');
  if (!bundle || errors.length) {
    throw new RunError(`${agentId} does not compile:\n${(errors.length ? errors : diagnostics).map((d: Diagnostic) => formatDiagnostic(d)).join('\n')}`);
  }
  return prepareCompiled(bundle, agentId, () => parseInputFlag(rawInput), options, sessionId);
}

/**
 * prepareRun from a bundle already compiled (an application's AgentloomClient may hold one):
 * lifecycle, input checks, workflow type, bundle stored. `given` reads the input (undefined: the
 * agent's first interface example), after the lifecycle check.
 */
export async function prepareCompiled(bundle: CompiledBundle, agentId: string, given: () => JsonValue | undefined, options?: RunOptions, sessionId?: string): Promise<PreparedRun> {
  const root = bundle.agents[agentId];
  if (!root) throw new RunError(`the bundle has no agent ${agentId}; it has: ${Object.keys(bundle.agents).sort().join(', ')}`);
  // Lifecycle before anything starts: disabled never runs, draft only with --allow-draft.
  const refusal = lifecycleRefusal(root, { allow_draft: options?.allow_draft === true });
  if (refusal) throw new RunError(refusal);
  const provided = given();
  const examples = root.interface.input.examples ?? [];
  if (provided === undefined && !examples.length) throw new RunError(`${agentId} has no interface.input.examples: pass --input JSON`);
  const input: JsonValue = provided === undefined ? examples[0] : provided;
  const inputFromExample = provided === undefined;
  // Before anything walks or serialises the input: a deep one would overflow the stack.
  const tooDeep = depthRefusal(input);
  if (tooDeep) throw new RunError(tooDeep);
  const problems = inputErrors(root, input);
  if (problems.length) throw new RunError(`input refused by ${agentId}'s interface.input.schema:\n  ${problems.join('\n  ')}`);
  const fileProblems = fileInputErrors(root, input);
  if (fileProblems.length) throw new RunError(`input refused by ${agentId}'s file fields (ui.ui_hints accept / max_size_mb):\n  ${fileProblems.join('\n  ')}`);
  const workflowType = workflowTypeFor(root);
  if (!workflowType) throw new RunError(`${agentId} uses ${patternOf(root)}, which this runtime does not implement`);
  const ephemeralProblem = ephemeralRefusal(root, workflowType, input, sessionId !== undefined);
  if (ephemeralProblem) throw new RunError(ephemeralProblem);
  const byReference = tooLargeForHistory(root, workflowType, input);
  const ref = await storeBundle(openBlobStore(), bundle);
  let runOptions = options;
  let session: Awaited<ReturnType<typeof prepareSession>> | undefined;
  if (sessionId !== undefined) {
    session = await prepareSession(root, workflowType, input, sessionId);
    runOptions = { ...(options ?? {}), input_ref: session.inputRef };
  }
  // Memory (the Agent Definition Specification): {actorId} is --actor, else $USER; {sessionId} is --session, else the run's id.
  const mem = memoryUse(root.memory);
  if (mem.reads || mem.writes) runOptions = { ...(runOptions ?? {}), actor_id: options?.actor_id || process.env.USER || 'anonymous', ...(sessionId !== undefined ? { session_id: sessionId } : {}) };
  // Claim check: the first message is stored (a session's already is) and history holds its reference.
  if (byReference !== undefined && !runOptions?.input_ref) runOptions = { ...(runOptions ?? {}), input_ref: await storeFirstMessage(root, input) };
  return {
    bundle, root, input, inputFromExample, workflowType,
    ...(byReference !== undefined ? { inputByReference: byReference } : {}),
    runInput: byReference !== undefined ? byReferenceInput(ref, agentId, runOptions) : { bundle: ref, agent_id: agentId, input, ...(runOptions ? { options: runOptions } : {}) },
    ...(session ? { session: { id: session.id, prev: session.prev, prompt: session.prompt, kept: session.kept, dropped: session.dropped } } : {}),
  };
}

/**
 * An input over MAX_INLINE_INPUT_BYTES: its size when the run takes it by reference (claim check),
 * a RunError when it cannot (undefined: it goes in history as usual). An ephemeral run already
 * takes its input by reference (startPrepared).
 */
export function tooLargeForHistory(root: CompiledAgent, workflowType: string, input: JsonValue): number | undefined {
  const bytes = inputBytes(input);
  if (bytes <= MAX_INLINE_INPUT_BYTES) return undefined;
  if (!claimCheckable(root, workflowType)) throw new RunError(sizeRefusal(root, bytes));
  if (isEphemeral(root.artifacts)) return undefined;
  const max = root.runtime.max_input_chars;
  const chars = typeof input === 'string' ? input.length : JSON.stringify(input ?? null).length;
  // The run sees only a reference, so runtime.max_input_chars is applied here (the run's own message).
  if (max !== undefined && chars > max) throw new RunError(`input has ${chars} characters, more than runtime.max_input_chars (${max})`);
  return bytes;
}

/**
 * The workflow input of a claim-checked run: `input` is left out (not null), so the model activity
 * reads the input from the stored first message, as it does after an input guardrail's rewrite.
 */
export function byReferenceInput(bundle: BlobRef, agentId: string, options: RunOptions | undefined): RunAgentInput {
  return { bundle, agent_id: agentId, ...(options ? { options } : {}) } as RunAgentInput;
}

/** Store the run's first user message as the run would render it (a loose message; RunOptions.input_ref). */
export async function storeFirstMessage(root: CompiledAgent, input: JsonValue): Promise<BlobRef> {
  return new MessageStore(openBlobStore()).putLoose({ role: 'user', content: renderUserPrompt(input, reactConfig(root).user_prompt_template) });
}

/** `--session ID`: the first message of the run is the session's earlier exchanges (trimmed) and the new prompt, stored. */
async function prepareSession(root: CompiledAgent, workflowType: string, input: JsonValue, id: string) {
  if (!SESSION_ID.test(id)) throw new RunError(`--session must be letters, digits, '.', '_', ':' or '-' (up to 128 characters), e.g. --session support-42 (got '${id}')`);
  if (workflowType !== 'agfReactWorkflow') throw new RunError(`--session continues a conversation of an agf.react agent; ${root.agent_id} uses ${patternOf(root)}`);
  if (root.state?.session_history === 'ephemeral') {
    throw new RunError(`${root.agent_id} declares state.session_history: ephemeral (no history across runs): remove --session, or set state.session_history: session`);
  }
  const sessions = new SessionStore(openBlobStore());
  const prev = await sessions.load(root.agent_id, id);
  const prompt = renderUserPrompt(input, reactConfig(root).user_prompt_template);
  const sp = sessionPrompt(prev.messages, prompt, root.state?.max_state_tokens);
  return { id, prev, prompt, kept: sp.kept, dropped: sp.dropped, inputRef: await sessions.putFirstMessage(sp.text) };
}

/** After a successful run of a session: its prompt and answer join the session. */
export async function recordSessionRun(p: PreparedRun, workflowId: string, output: unknown): Promise<void> {
  if (!p.session) return;
  const answer = typeof output === 'string' ? output : JSON.stringify(output);
  await new SessionStore(openBlobStore()).recordRun(p.root.agent_id, p.session.id, p.session.prev, p.session.prompt, answer, workflowId);
}

export function newWorkflowId(agentId: string): string {
  return `${agentId}-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** A root agf.react run of a `retention_class: ephemeral` agent keeps its content out of history and the store. */
export function ephemeralStart(p: Pick<PreparedRun, 'root' | 'workflowType'>): boolean {
  return p.workflowType === 'agfReactWorkflow' && isEphemeral(p.root.artifacts);
}

/** Why an ephemeral agent cannot run this way (undefined: it can): `--session` and memory collections are refused, not silently kept. */
export function ephemeralRefusal(root: CompiledAgent, workflowType: string, input: JsonValue, session: boolean): string | undefined {
  if (workflowType !== 'agfReactWorkflow' || !isEphemeral(root.artifacts)) return undefined;
  if (session) return `${root.agent_id} declares artifacts.retention_class: ephemeral, and --session keeps the conversation in the store: remove --session, or choose another retention class`;
  const mem = memoryUse(root.memory);
  if (mem.reads || mem.writes) return `${root.agent_id} declares artifacts.retention_class: ephemeral and memory collections, which keep entries across runs: remove memory, or choose another retention class`;
  const max = root.runtime.max_input_chars;
  const chars = typeof input === 'string' ? input.length : JSON.stringify(input ?? null).length;
  // The run sees only a reference, so the client applies runtime.max_input_chars (the same message as the run's check).
  if (max !== undefined && chars > max) return `input has ${chars} characters, more than runtime.max_input_chars (${max})`;
  return undefined;
}

/** `taskQueue`: an application's AgentloomClient names its queue; the CLI takes LOOM_TASK_QUEUE, else the default. */
export async function startPrepared(client: Client, p: PreparedRun, taskQueue?: string): Promise<WorkflowHandle> {
  const workflowId = newWorkflowId(p.root.agent_id);
  const ephemeral = ephemeralStart(p);
  let runInput = p.runInput;
  let details = p.inputByReference !== undefined
    ? `Input: ${formatBytes(p.inputByReference)}, stored by reference (over the ${formatBytes(MAX_INLINE_INPUT_BYTES)} carried in history)`
    : `Input:\n\`\`\`json\n${JSON.stringify(p.input, null, 2).slice(0, 4000)}\n\`\`\``;
  const store = ephemeral ? openBlobStore() : undefined;
  if (store) {
    // The input goes to the store under the run's id; the start event holds only its reference.
    const prompt = renderUserPrompt(p.input, reactConfig(p.root).user_prompt_template);
    const inputRef = await markEphemeralRun(store, workflowId, p.root.agent_id, prompt);
    runInput = { ...p.runInput, input: null, options: { ...(p.runInput.options ?? {}), input_ref: inputRef, ephemeral: true } };
    details = 'Input: not shown (artifacts.retention_class: ephemeral)';
  }
  try {
    return await startRun(client, p, workflowId, runInput, details, taskQueue);
  } catch (e) {
    if (store) await deleteEphemeralWrites(store, workflowId);
    throw e;
  }
}

async function startRun(client: Client, p: PreparedRun, workflowId: string, runInput: RunAgentInput, details: string, taskQueue?: string): Promise<WorkflowHandle> {
  return client.workflow.start(p.workflowType, {
    taskQueue: taskQueue ?? process.env.LOOM_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    workflowId,
    args: [runInput],
    staticSummary: `${p.root.agent_id} v${p.root.version} (${patternOf(p.root)})`,
    staticDetails: `Agent **${p.root.meta.name}** — ${p.root.meta.description ?? ''}\n\n${details}`,
    searchAttributes: {
      [SEARCH_ATTRIBUTES.agentId]: [p.root.agent_id],
      [SEARCH_ATTRIBUTES.agentVersion]: [p.root.version],
      [SEARCH_ATTRIBUTES.pattern]: [patternOf(p.root)],
      [SEARCH_ATTRIBUTES.status]: ['running'],
    },
  });
}
