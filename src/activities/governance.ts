/**
 * The policy pass of a run (the Agent Definition Specification's "policies"), as activities and the model activity's hooks:
 *  - `redactRunInput`: policies.pii_redaction on the rendered first message, before the model or
 *    any input guardrail reads it; the redacted message is stored and only its ref goes on, so
 *    history written after the pass holds no raw input.
 *  - `checkBlockedContent`: policies.blocked_content on a final answer (read from the message
 *    store) with the builtin classifier, or the one the worker was given.
 *  - `redactModelTurn` / `redactModelReply` (called inside modelTurn): what the provider receives
 *    and every reply it returns are redacted before they are stored or returned, so raw PII
 *    reaches neither the model nor the output nor the activity results in history.
 * Detection and classification are pure (src/policies); this file only does the I/O around them.
 */
import { log } from '@temporalio/activity';
import type { CompiledAgent, JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import type { AppendItem, Message } from '../runtime/messages';
import { describeFound, redactJson, redactReply, redactText, PiiKind, type RedactOptions } from '../governance/pii';
import { classifyContent, refusalReason, ContentClassifier } from '../governance/content';
import { BundleCache } from './agent-loader';
import { MessageStore } from './message-store';
import { openBlobStore } from './blob-store';

export interface RedactRunInputInput {
  bundle: BlobRef;
  agent_id: string;
  /** The first message as the workflow rendered it (inline, or a stored ref). */
  message: AppendItem;
}
export interface RedactRunInputOutput {
  /** The redacted first message (a loose message of the message store). */
  stored: BlobRef;
  /** Placeholder kind -> count (never the values). */
  found: Partial<Record<PiiKind, number>>;
}

export interface CheckBlockedContentInput {
  bundle: BlobRef;
  agent_id: string;
  /** The final answer: the conversation head whose last message is the assistant's reply. */
  head: BlobRef;
}
export interface CheckBlockedContentOutput {
  refused?: { category: string; reason: string };
}

function logInfo(message: string, attrs: Record<string, unknown>): void {
  try {
    log.info(message, attrs);
  } catch {
    // outside an activity (unit use)
  }
}

/** pii_redaction inside the model activity: the messages about to be stored and the raw input the scripted provider reads. */
export function redactModelTurn(agent: CompiledAgent, append: AppendItem[], input: JsonValue | undefined): { append: AppendItem[]; input: JsonValue | undefined } {
  if (!agent.policies.pii_redaction) return { append, input };
  // Tool results (role tool) are left as the tool returned them (the Agent Definition Specification: the output pass catches
  // what the model echoes); user messages are redacted.
  const redacted = append.map((it): AppendItem => ('message' in it && it.message.role === 'user' ? { message: { ...it.message, content: redactText(it.message.content).text } } : it));
  return { append: redacted, input: input === undefined ? undefined : redactJson(input).value };
}

/** pii_redaction on a provider reply, before it is stored, checked or returned. */
export function redactModelReply<R extends { content?: string }>(agent: CompiledAgent, reply: R, opts: RedactOptions = {}): R {
  if (!agent.policies.pii_redaction || reply.content === undefined) return reply;
  const r = redactReply(reply.content, opts);
  if (!Object.keys(r.found).length) return reply;
  logInfo('pii redacted from model reply', { agent_id: agent.agent_id, found: describeFound(r.found) });
  return { ...reply, content: r.text };
}

export function createPolicyActivities(opts: { bundles?: BundleCache; messages?: MessageStore; classifier?: ContentClassifier } = {}) {
  const blobs = opts.bundles?.blobs ?? opts.messages?.blobs ?? openBlobStore();
  const bundles = opts.bundles ?? new BundleCache(blobs);
  const messages = opts.messages ?? new MessageStore(blobs);
  const classify = opts.classifier ?? classifyContent;
  return {
    async redactRunInput(inp: RedactRunInputInput): Promise<RedactRunInputOutput> {
      const msg: Message = 'ref' in inp.message ? await messages.getLoose(inp.message.ref) : inp.message.message;
      const r = redactText(msg.content);
      const stored = await messages.putLoose({ ...msg, content: r.text });
      if (Object.keys(r.found).length) logInfo('pii redacted from run input', { agent_id: inp.agent_id, found: describeFound(r.found) });
      return { stored, found: r.found };
    },

    async checkBlockedContent(inp: CheckBlockedContentInput): Promise<CheckBlockedContentOutput> {
      const { agent } = await bundles.agent(inp.bundle, inp.agent_id);
      const categories = agent.policies.blocked_content ?? [];
      if (!categories.length) return {};
      const text = (await messages.node(inp.head)).msg.content;
      const v = classify(text, categories);
      if (!v) return {};
      logInfo('blocked_content refused a final answer', { agent_id: inp.agent_id, category: v.category });
      return { refused: { category: v.category, reason: refusalReason(v) } };
    },
  };
}
