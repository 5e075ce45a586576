/**
 * The Agent Definition Specification's memory in an orchestrator's root run (read at its start, written back at its end; members do not read it), the pure part: the query and the
 * writeback message are the run's input (its text, or its JSON text) after the input contract;
 * the `# Memory` block reaches the members as part of the task — appended to a text task, so
 * every member given the task (the first step, each parallel branch, graph entry nodes, every
 * strategies turn, whose input starts with the task) sees it — or, for a JSON task the block
 * cannot be appended to, as the `memory` entry of the context of each member whose input is the
 * task itself. What continue-as-new carries (`carried.memory`).
 */
import type { JsonObject, JsonValue } from '../compiled/types';

/** Carried across continue-as-new: memory applies to this run chain. */
export interface RunMemoryState {
  /** What the read searched with and what the writeback stores as the message (the input after the input contract, before the block). */
  query: string;
  /** A JSON task's block, given as member context. */
  context?: string;
  /** The block that was read (what members must be given), and whether a member was given it. */
  block?: string;
  given?: boolean;
}

export function isRunMemoryState(v: unknown): v is RunMemoryState {
  return typeof v === 'object' && v !== null && typeof (v as RunMemoryState).query === 'string';
}

/** The input as text: a string as it is, anything else as its JSON. */
export function inputText(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : JSON.stringify(v ?? null);
}

/** The task members are given once the block was read: a text task with the block appended; a JSON task unchanged, the block for member context. */
export function taskWithMemory(task: JsonValue, block: string): { task: JsonValue; context?: string } {
  if (!block) return { task };
  if (typeof task === 'string') return { task: `${task}\n\n${block}` };
  return { task, context: block };
}

/** A member's context with the JSON task's block, when its input is the task itself; undefined when nothing changes. */
export function memberContext(task: JsonValue, memberInput: JsonValue, context: JsonObject | undefined, block: string | undefined): JsonObject | undefined {
  if (!block || JSON.stringify(memberInput ?? null) !== JSON.stringify(task ?? null)) return undefined;
  return { ...(context ?? {}), memory: block };
}

/** Whether a member's input (or the context it is given) carries the block: the block's text appears in it. */
export function carriesBlock(memberInput: JsonValue, context: JsonObject | undefined, block: string): boolean {
  const inner = JSON.stringify(block).slice(1, -1);
  return JSON.stringify(memberInput ?? null).includes(inner) || (context !== undefined && JSON.stringify(context).includes(inner));
}

/** The run's warning when what was read reached no member (e.g. agf.batch members get items of the input, never the input). */
export function blockNotGiven(state: RunMemoryState): string | undefined {
  return state.block && !state.given ? 'memory: what read_collections recalled at the start of the run reached no member (no member was given the run\'s input)' : undefined;
}
