/**
 * The model activity: appends the pending messages (tool results, a correction) to the
 * conversation, calls the provider with the instructions read verbatim from the bundle, appends
 * the assistant reply and returns only that reply, the new head and the usage. For a final
 * answer it also checks the reply against `interface.output.schema` (ajv runs here, not in the
 * workflow). Providers: `scripted` (here), `openai` (src/activities/openai.ts) and the native
 * `anthropic`, `google`, `bedrock`, `azure`, `ollama` (src/activities/providers/).
 */
import { waitOut } from './outages';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CompiledAgent, JsonValue, CompiledTool } from '../compiled/types';
import type { BlobRef, ExtraToolSpec } from '../shared/contract';
import type { AppendItem, Message, ToolCall } from '../runtime/messages';
import { reactConfig, type ModelPrefs } from '../runtime/agent-view';
import { materializeReply, scriptedUsage, selectScriptedReply, type ScriptedContext } from '../runtime/scripted';
import { checkOutput, OutputCheck } from '../runtime/output';
import { schemaError, BundleCache } from './agent-loader';
import { MessageStore } from './message-store';
import { withHeartbeat } from './react-tools';
import { redactModelReply, redactModelTurn } from './governance';
import { LOOP_INSTRUCTIONS, withLoopKeys } from '../runtime/execution-loop';
import { callStreamedSignal, streamedCallsQuery } from '../shared/definitions';
import { StreamTextSink } from './stream-text';
import { storeCallArgs } from './ephemeral';
import { storedArgsRef } from '../runtime/ephemeral-args';
import { chunkLimit, chunksInToolResult, citationProblem, citationsRequired, groundingProblem, groundingRequired, inlineChunks, requiredKnowledgeBlock, type KnowledgeChunk } from '../runtime/knowledge-search';
import { backendChunks } from './knowledge';
import type { Provider, ProviderReply, ProviderRequest } from './provider';

export interface ModelTurnInput {
  bundle: BlobRef;
  agent_id: string;
  /** Conversation head before this turn (null on the first turn, with `append` holding the input). */
  head: BlobRef | null;
  /** 0-based turn number of this run (continues across continue-as-new). */
  turn: number;
  prefs: ModelPrefs;
  /** Messages to append before calling the model (tool results, a correction). */
  append: AppendItem[];
  /** Use runtime.fallback_model instead of runtime.model. */
  fallback?: boolean;
  /** The raw run input (scripted `{{input.x}}`); only the first turn carries it, later turns read it from the store. */
  input?: JsonValue;
  extra_tools?: ExtraToolSpec[];
  forbid_tools?: boolean;
  /**
   * The Execution Loop specification's streaming: `calls` sends each registry-tool call complete in the stream to the run
   * (callStreamed signal; dependencies loop), `text` writes the text as it arrives to the store
   * (`loom run --stream`, src/activities/stream-text.ts).
   */
  stream?: { calls?: boolean; text?: boolean };
}

export interface ModelTurnOutput {
  head: BlobRef;
  message: { content?: string; tool_calls?: ToolCall[] };
  usage: { prompt_tokens: number; completion_tokens: number };
  model: string;
  /** Present when the reply is a final answer: its check against interface.output.schema. */
  output_check?: OutputCheck;
  /**
   * An ephemeral run: the checked final answer is stored here instead of being in
   * `output_check.value` (null) and `message.content` (absent), so the run's history holds neither.
   */
  output_ref?: BlobRef;
}


export function reactInstructions(agent: CompiledAgent): string {
  const cfg = reactConfig(agent);
  const own = typeof cfg.instructions === 'string' && cfg.instructions.trim() ? cfg.instructions : undefined;
  const base = !own ? agent.instructions : agent.instructions ? `${own}\n\n${agent.instructions}` : own;
  // runtime.execution_loop dependencies: the model learns the _dependsOn/_outputPath wire form.
  return agent.runtime.execution_loop === 'dependencies' ? `${base}\n\n${LOOP_INSTRUCTIONS}` : base;
}

/**
 * citations_required (output provenance or a source): an answer that cites no source fails the
 * output check, so the react loop asks for one correction, then fails the run with the reason.
 */
async function withCitationCheck(agent: CompiledAgent, check: OutputCheck, text: string, input: JsonValue): Promise<OutputCheck> {
  if (!check.ok || !citationsRequired(agent)) return check;
  const sources = agent.knowledge.refs.filter((k) => k.status !== 'disabled');
  const query = typeof input === 'string' ? input : JSON.stringify(input ?? '');
  const files = sources.filter((k) => k.backend.type === 'files');
  const chunks = [...sources.flatMap(inlineChunks), ...(await backendChunks(files, query, chunkLimit(files), agent.tenant?.secrets))];
  const problem = citationProblem(text, sources, chunks);
  return problem ? { ok: false, error: problem } : check;
}

/**
 * grounding_required (agent-level or a source's `retrieval`): an answer not supported by the
 * chunks this run retrieved (search results in the conversation, the required-knowledge block)
 * fails the output check, so the react loop asks for one correction, then fails the run with the
 * reason (src/runtime/knowledge-search.ts groundingProblem).
 */
async function withGroundingCheck(agent: CompiledAgent, check: OutputCheck, text: string, input: JsonValue, conversation: readonly Message[]): Promise<OutputCheck> {
  if (!check.ok || !groundingRequired(agent)) return check;
  const searched = conversation.filter((m) => m.role === 'tool' && !m.is_error).flatMap((m) => chunksInToolResult(m.content));
  const retrieved = [...searched, ...(await requiredKnowledge(agent, input)).given];
  const problem = groundingProblem(text, agent.knowledge.refs, retrieved);
  return problem ? { ok: false, error: problem } : check;
}

/** The required-knowledge block and the chunks it gives the model (those whose citation id it holds). */
async function requiredKnowledge(agent: CompiledAgent, input: JsonValue): Promise<{ block: string; given: KnowledgeChunk[] }> {
  const required = agent.knowledge.refs.filter((k) => k.required && k.status !== 'disabled');
  if (!required.length) return { block: '', given: [] };
  const query = typeof input === 'string' ? input : JSON.stringify(input ?? '');
  const chunks = [...required.flatMap(inlineChunks), ...(await backendChunks(required, query, chunkLimit(required), agent.tenant?.secrets))];
  const block = requiredKnowledgeBlock(chunks, query);
  return { block, given: chunks.filter((c) => block.includes(`[${c.kb_id}/${c.id}]`)) };
}

/** `required: true` knowledge sources appended to the instructions (bounded, with citation ids). */
async function withRequiredKnowledge(agent: CompiledAgent, instructions: string, input: JsonValue): Promise<string> {
  const { block } = await requiredKnowledge(agent, input);
  return block ? `${instructions}\n\n${block}` : instructions;
}

export function toolSpecs(agent: CompiledAgent, extra: ExtraToolSpec[] = [], forbid = false): ProviderRequest['tools'] {
  if (forbid) return [];
  const refs: CompiledTool[] = agent.tools.refs;
  return [
    ...refs.map((t) => ({ name: t.tool_id, description: t.description, parameters: agent.runtime.execution_loop === 'dependencies' ? withLoopKeys(t.input_schema) : t.input_schema })),
    ...extra.map((e) => ({ name: e.name, description: e.description, parameters: e.parameters })),
  ];
}

function providerFailure(status: number, message: string, retryAfter?: number): ApplicationFailure {
  const retryable = status === 429 || status >= 500;
  return ApplicationFailure.create({
    message: `model provider error ${status}: ${message}`,
    type: `ModelHttp${status}`,
    nonRetryable: !retryable,
    nextRetryDelay: retryAfter !== undefined ? `${retryAfter}s` : undefined,
  });
}

/** The scripted provider: deterministic replies from the model file. */
export const scriptedProvider: Provider = async (req) => {
  const cfg = req.model.scripted ?? {};
  const conv = req.conversation;
  const last = conv[conv.length - 1];
  // The latest tool result is near the end: search backwards. The results by tool name walk the
  // whole conversation, so they are built only when a reply's template reads them.
  let lastTool: Message | undefined;
  for (let i = conv.length - 1; i >= 0 && !lastTool; i--) if (conv[i].role === 'tool') lastTool = conv[i];
  let toolResults: Record<string, string> | undefined;
  const ctx: ScriptedContext = {
    turn: req.turn,
    lastMessage: last?.content ?? '',
    inputText: conv.find((m) => m.role === 'user')?.content ?? '',
    input: req.input,
    lastToolResult: lastTool?.content,
    get toolResults() {
      toolResults ??= Object.fromEntries(conv.filter((m) => m.role === 'tool' && m.name).map((m) => [m.name as string, m.content]));
      return toolResults;
    },
  };
  const reply = selectScriptedReply(cfg, ctx);
  if (!reply) throw ApplicationFailure.nonRetryable(`scripted model ${req.model.model_id} has no reply for turn ${req.turn}`, 'ScriptedModelExhausted');
  if (cfg.latency_ms) await sleepHeartbeating(cfg.latency_ms, req.signal);
  if (reply.error) throw providerFailure(reply.error.status, reply.error.message, reply.error.retry_after_seconds);
  const out = materializeReply(reply, ctx);
  let content = out.content;
  if (content !== undefined && req.prefs.stop_sequences?.length) {
    for (const s of req.prefs.stop_sequences) {
      const i = content.indexOf(s);
      if (i >= 0) content = content.slice(0, i);
    }
  }
  if (content !== undefined && req.prefs.max_output_tokens !== undefined && content.length > req.prefs.max_output_tokens * 4) {
    content = content.slice(0, req.prefs.max_output_tokens * 4);
  }
  const usage = scriptedUsage(reply, (last?.content ?? '').length, (content ?? '') + JSON.stringify(out.tool_calls ?? []));
  if (req.prefs.max_output_tokens !== undefined) usage.completion_tokens = Math.min(usage.completion_tokens, req.prefs.max_output_tokens);
  const calls = req.prefs.tool_choice === 'none' ? undefined : out.tool_calls;
  // Streaming, deterministically: the text in fixed-size chunks, then each call in reply order.
  if (req.onText && content) for (const chunk of scriptedChunks(content)) req.onText(chunk);
  if (req.onCall) for (const c of calls ?? []) await req.onCall(c);
  return { content, tool_calls: calls, usage };
};

/** The scripted provider's stream: `text` in chunks of 16 characters. */
export function scriptedChunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 16) out.push(text.slice(i, i + 16));
  return out;
}

async function sleepHeartbeating(ms: number, signal?: AbortSignal): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      Context.current().heartbeat();
    } catch {
      // not in an activity (bench/unit use)
    }
    if (signal?.aborted) throw new Error('cancelled');
    await new Promise((r) => setTimeout(r, Math.min(200, end - Date.now())));
  }
}

export interface ModelDeps {
  bundles: BundleCache;
  messages: MessageStore;
  providers: Record<string, Provider>;
}

export function createModelActivity(deps: ModelDeps) {
  return async function modelTurn(inp: ModelTurnInput): Promise<ModelTurnOutput> {
    const { agent } = await deps.bundles.agent(inp.bundle, inp.agent_id);
    const model = inp.fallback ? agent.runtime.fallback_model ?? agent.runtime.model : agent.runtime.model;
    const provider = deps.providers[model.provider];
    if (!provider) throw ApplicationFailure.nonRetryable(`model provider '${model.provider}' (model ${model.model_id}) is not available in this worker`, 'UnknownProvider');
    // policies.pii_redaction: the provider never receives raw PII, nor does the store (src/activities/governance.ts).
    const pass = redactModelTurn(agent, inp.append, inp.input);
    const head = await deps.messages.appendAll(inp.head, pass.append);
    if (!head) throw ApplicationFailure.nonRetryable('model turn with an empty conversation', 'EmptyConversation');
    const conversation = await deps.messages.conversation(head);
    let input: JsonValue = pass.input ?? null;
    if (pass.input === undefined) {
      const first = conversation[0];
      try {
        input = first ? (JSON.parse(first.content) as JsonValue) : null;
      } catch {
        input = first?.content ?? null;
      }
    }
    let ctx: Context | undefined;
    try {
      ctx = Context.current();
    } catch {
      ctx = undefined;
    }
    const stream = streamChannels(deps, agent, inp, ctx);
    // A retry after calls were taken from the stream completes the turn with exactly those calls
    // (they may be running already); the model plans the rest on the next turn.
    const taken = await stream.taken();
    const instructions = taken.length ? '' : await withRequiredKnowledge(agent, reactInstructions(agent), input);
    const raw = taken.length ? { tool_calls: taken, usage: { prompt_tokens: 0, completion_tokens: 0 } } : await withHeartbeat(() => provider({
      model,
      agent,
      // The Agent Format: agf.react `config.instructions` reach the model verbatim; the Markdown body's
      // sections (the Agent Definition Specification) follow them.
      instructions,
      conversation,
      tools: toolSpecs(agent, inp.extra_tools, inp.forbid_tools),
      prefs: inp.prefs,
      turn: inp.turn,
      input,
      signal: ctx?.cancellationSignal,
      ...stream.hooks,
    }));
    const reply = redactModelReply(agent, raw as ProviderReply);
    // The model answered: recording its reply waits out a store outage inside this attempt (up to
    // its start-to-close), so the model is not asked again for the same turn.
    const where = `the store ${deps.messages.blobs.location}`;
    await waitOut(where, () => stream.finish(reply.content));
    const msg: Message = { role: 'assistant', content: reply.content ?? '' };
    if (reply.tool_calls?.length) msg.tool_calls = reply.tool_calls;
    const newHead = await waitOut(where, () => deps.messages.append(head, msg));
    const out: ModelTurnOutput = { head: newHead, message: {}, usage: reply.usage, model: model.model_id };
    if (reply.content !== undefined) out.message.content = reply.content;
    if (reply.tool_calls?.length) out.message.tool_calls = reply.tool_calls;
    else {
      const cited = await withCitationCheck(agent, checkOutput(agent.interface.output.schema, reply.content ?? '', schemaError), reply.content ?? '', input);
      out.output_check = await withGroundingCheck(agent, cited, reply.content ?? '', input, conversation);
    }
    return waitOut(where, () => keepOutOfHistory(deps.messages, agent, out));
  };
}

/**
 * The streaming side channels of one model turn. Calls go to the run only on the dependencies loop
 * (ModelTurnInput.stream.calls) and only for registry tools: runtime tools (delegation, escalation,
 * a terminal hand-off) wait for the whole reply. Text goes to the store only when asked
 * (`loom run --stream`), and not while policies.pii_redaction is on (a chunk cannot be redacted
 * reliably): then the redacted text is written once, when the reply is complete.
 */
function streamChannels(deps: ModelDeps, agent: CompiledAgent, inp: ModelTurnInput, ctx: Context | undefined) {
  const info = ctx?.info;
  const wid = info?.workflowExecution?.workflowId;
  const handle = inp.stream?.calls && ctx && wid ? ctx.client.workflow.getHandle(wid) : undefined;
  const registry = new Set(agent.tools.refs.map((t) => t.tool_id));
  const sink = inp.stream?.text && wid ? new StreamTextSink(deps.messages.blobs, wid, inp.turn, info?.attempt ?? 1) : undefined;
  const rawText = sink && !agent.policies.pii_redaction;
  const hooks: Pick<ProviderRequest, 'onCall' | 'onText'> = {
    ...(handle
      ? {
          onCall: async (call: ToolCall) => {
            if (!registry.has(call.name)) return;
            // An ephemeral run's streamed call carries its arguments by reference too.
            const salt = await deps.messages.salt();
            await handle.signal(callStreamedSignal, { turn: inp.turn, call: salt === undefined ? call : await callOutOfHistory(deps.messages.blobs, salt, agent, call) });
          },
        }
      : {}),
    ...(rawText ? { onText: (delta: string) => sink.add(delta) } : {}),
  };
  return {
    hooks,
    async taken(): Promise<ToolCall[]> {
      if (!handle || (info?.attempt ?? 1) <= 1) return [];
      return handle.query(streamedCallsQuery, inp.turn);
    },
    async finish(content: string | undefined): Promise<void> {
      await sink?.finish(content ?? '');
    },
  };
}

/**
 * An ephemeral run's reply text stays in the store: tool-call turns return no
 * content and each registry tool call's arguments by reference (stored salted, listed for
 * deletion); a final answer returns no content, and a checked one is stored and returned by
 * reference (output guardrails read it from the conversation's head, src/activities/guardrails.ts).
 */
async function keepOutOfHistory(messages: MessageStore, agent: CompiledAgent, out: ModelTurnOutput): Promise<ModelTurnOutput> {
  const salt = await messages.salt();
  if (salt === undefined) return out;
  delete out.message.content;
  if (out.message.tool_calls?.length) {
    out.message.tool_calls = await Promise.all(out.message.tool_calls.map((c) => callOutOfHistory(messages.blobs, salt, agent, c)));
    return out;
  }
  if (!out.output_check?.ok) return out;
  const output_ref = await messages.blobs.putJson({ format: 'agentloom.output/v1', value: out.output_check.value, salt });
  return { ...out, output_check: { ok: true, value: null }, output_ref };
}

/**
 * A call of a registry tool (not an agent tool, whose child run takes the arguments as its input,
 * nor a runtime tool: delegation, escalation, a hand-off) gets its arguments by reference.
 */
async function callOutOfHistory(blobs: MessageStore['blobs'], salt: string, agent: CompiledAgent, call: ToolCall): Promise<ToolCall> {
  const tool = agent.tools.refs.find((t) => t.tool_id === call.name);
  if (!tool || tool.kind === 'agent' || storedArgsRef(call.arguments)) return call;
  return { ...call, arguments: await storeCallArgs(blobs, salt, call.arguments ?? {}, tool.sensitive_fields ?? []) };
}
