/**
 * An orchestrating agent's own contract (the requirement: "an agent that runs a multi-agent
 * policy or pattern applies its own guardrails (input/output), timeout_seconds, output schema and
 * token budget"). The pure half: what the agent declares and what is at fault; the orchestrator
 * workflow (src/workflows/orchestrator.ts) applies it. The token budget of an orchestrator is
 * `runtime.max_input_chars`, the Agent Definition Specification's "equivalent token budget" of the input (it gives an orchestrator no token field).
 */
import type { JsonSchema, JsonValue } from '../compiled/types';
import { inputProblems } from './member-input';
import { stripFence, wantsText } from '../runtime/output';

export interface ContractAgent {
  agent_id: string;
  runtime: { timeout_seconds?: number; max_input_chars?: number };
  interface: { output: { schema?: JsonSchema } };
  guardrails?: { input?: unknown[]; output?: unknown[] };
}

/** What the orchestration must do at its start: arm the deadline, measure the input, run input guardrails. */
export interface InputContract {
  timeoutSeconds?: number;
  tooLong?: string;
  guardrails: boolean;
}

/** The size the input is measured by: the text, or its JSON. */
export function inputChars(input: JsonValue): number {
  return typeof input === 'string' ? input.length : JSON.stringify(input ?? null).length;
}

/** What applies at the start of the run; undefined when the agent declares nothing that does. */
export function inputContract(agent: ContractAgent, input: JsonValue): InputContract | undefined {
  const max = agent.runtime.max_input_chars;
  const chars = inputChars(input);
  const tooLong = max !== undefined && chars > max ? `input has ${chars} characters, more than runtime.max_input_chars (${max})` : undefined;
  const timeoutSeconds = agent.runtime.timeout_seconds;
  const guardrails = (agent.guardrails?.input?.length ?? 0) > 0;
  if (!tooLong && !timeoutSeconds && !guardrails) return undefined;
  return { ...(timeoutSeconds ? { timeoutSeconds } : {}), ...(tooLong ? { tooLong } : {}), guardrails };
}

/**
 * The orchestration's final output against the agent's `interface.output.schema`: the output as
 * it is, or, for a text output and a schema that asks for JSON, the text parsed (fences stripped),
 * as the react loop reads a final answer. A refusal names every field at fault.
 */
export function conformOutput(agent: ContractAgent, output: JsonValue): { ok: true; output: JsonValue } | { ok: false; refusal: string } {
  const schema = agent.interface.output.schema;
  const problems = inputProblems(schema, output);
  if (!problems.length) return { ok: true, output };
  if (typeof output === 'string' && !wantsText(schema)) {
    try {
      const parsed = JSON.parse(stripFence(output)) as JsonValue;
      if (!inputProblems(schema, parsed).length) return { ok: true, output: parsed };
    } catch {
      // not JSON: the problems of the text stand
    }
  }
  const named = problems.map((p) => p.replace(/\bthe input\b/, 'the output'));
  return { ok: false, refusal: `the output of '${agent.agent_id}' does not match its interface.output.schema: ${named.join('; ')}` };
}

/** Whether output guardrails apply. */
export function guardsOutput(agent: ContractAgent): boolean {
  return (agent.guardrails?.output?.length ?? 0) > 0;
}

export function timeoutMessage(agent: ContractAgent): string {
  return `runtime.timeout_seconds (${agent.runtime.timeout_seconds}) of '${agent.agent_id}' exceeded before the orchestration finished`;
}
