/**
 * Swarm pattern bookkeeping (the Agent Definition Specification's "Swarm pattern"), pure: the shared context block (original
 * task, ordered history of who worked, accumulated key/values, registry of peers), hand-off
 * validation (only listed agents, plus the orchestrator itself), limits and ping-pong detection.
 */
import type { ExtraToolSpec } from '../shared/contract';
import type { JsonObject, JsonValue, SwarmPattern } from '../compiled/types';

export const HANDOFF_TOOL = 'handoff_to_agent';

export function handoffToolSpec(peers: { agent_id: string; description: string }[]): ExtraToolSpec {
  return {
    name: HANDOFF_TOOL,
    description:
      'Transfer control of this task to another agent of the swarm. Use it when a peer is better suited for the next step. ' +
      `Valid agents: ${peers.map((p) => p.agent_id).join(', ')}.`,
    parameters: {
      type: 'object',
      properties: {
        agent_name: { type: 'string', enum: peers.map((p) => p.agent_id), description: 'agent_id of the peer that takes over' },
        message: { type: 'string', description: 'The task or context for the receiving agent' },
        context: { type: 'object', description: 'Optional key information to share with every later agent' },
      },
      required: ['agent_name', 'message'],
    },
    terminal: true,
  };
}

export interface SwarmHistoryEntry {
  agent: string;
  iteration: number;
  /** Hand-off target, when this turn ended with a hand-off. */
  handoff_to?: string;
  message?: string;
  summary?: string;
}

export interface SwarmState {
  task: JsonValue;
  current: string;
  iterations: number;
  handoffs: number;
  /** Targets of every hand-off so far, in order. */
  handoff_targets: string[];
  history: SwarmHistoryEntry[];
  shared: JsonObject;
  /** Message passed with the last hand-off (the current agent's task). */
  message?: string;
}

export type HandoffDecision =
  | { ok: true; to: string }
  | { ok: false; reason: string; kind: 'unlisted' | 'ping_pong' | 'invalid' };

export class SwarmBook {
  readonly peers: string[];

  constructor(
    readonly orchestrator: string,
    readonly pattern: Pick<SwarmPattern, 'agents' | 'max_handoffs' | 'max_iterations' | 'repetitive_handoff_detection_window' | 'repetitive_handoff_min_unique_agents'>,
    readonly state: SwarmState,
  ) {
    this.peers = pattern.agents.map((a) => a.ref);
  }

  static start(orchestrator: string, pattern: SwarmBook['pattern'], task: JsonValue): SwarmBook {
    return new SwarmBook(orchestrator, pattern, { task, current: orchestrator, iterations: 0, handoffs: 0, handoff_targets: [], history: [], shared: {} });
  }

  /** Valid hand-off targets: the listed agents and the orchestrator (control may return to it). */
  validTargets(): string[] {
    return [this.orchestrator, ...this.peers.filter((p) => p !== this.orchestrator)];
  }

  handoffsExhausted(): boolean {
    return this.state.handoffs >= this.pattern.max_handoffs;
  }

  iterationsExhausted(): boolean {
    return this.state.iterations >= this.pattern.max_iterations;
  }

  beginIteration(): number {
    this.state.iterations += 1;
    return this.state.iterations;
  }

  /** The context block handed to the current member (RunOptions.context). */
  contextBlock(registry: { agent_id: string; description: string }[]): JsonObject {
    return {
      swarm: {
        original_task: this.state.task,
        current_agent: this.state.current,
        ...(this.state.message !== undefined ? { handoff_message: this.state.message } : {}),
        history: this.state.history.map((h) => ({ ...h }) as unknown as JsonObject),
        shared_context: { ...this.state.shared },
        peers: registry.filter((r) => r.agent_id !== this.state.current).map((r) => ({ agent_id: r.agent_id, description: r.description })),
        handoffs_used: this.state.handoffs,
        max_handoffs: this.pattern.max_handoffs,
      },
    };
  }

  /** Validate and (when valid) record a hand-off requested by the current agent. */
  handoff(args: JsonObject | undefined, summary?: string): HandoffDecision {
    const to = typeof args?.agent_name === 'string' ? args.agent_name : typeof args?.agent === 'string' ? args.agent : undefined;
    if (!to) return { ok: false, kind: 'invalid', reason: `${HANDOFF_TOOL} needs agent_name` };
    if (!this.validTargets().includes(to)) {
      return { ok: false, kind: 'unlisted', reason: `hand-off to '${to}' refused: not an agent of this swarm (allowed: ${this.validTargets().join(', ')})` };
    }
    if (this.handoffsExhausted()) {
      return { ok: false, kind: 'invalid', reason: `max_handoffs (${this.pattern.max_handoffs}) reached: ${this.state.current} must answer` };
    }
    const message = typeof args?.message === 'string' ? args.message : undefined;
    const ctx = args?.context;
    if (ctx && typeof ctx === 'object' && !Array.isArray(ctx)) Object.assign(this.state.shared, ctx);
    this.state.history.push({ agent: this.state.current, iteration: this.state.iterations, handoff_to: to, ...(message ? { message } : {}), ...(summary ? { summary } : {}) });
    this.state.handoffs += 1;
    this.state.handoff_targets.push(to);
    this.state.current = to;
    this.state.message = message;
    const pp = detectPingPong(this.state.handoff_targets, this.pattern.repetitive_handoff_detection_window, this.pattern.repetitive_handoff_min_unique_agents);
    if (pp) return { ok: false, kind: 'ping_pong', reason: pp };
    return { ok: true, to };
  }

  /** Record the final answer of the current agent. */
  finish(summary?: string): void {
    this.state.history.push({ agent: this.state.current, iteration: this.state.iterations, ...(summary ? { summary } : {}) });
  }
}

/**
 * Ping-pong: within the last `window` hand-offs fewer than `minUnique` distinct agents appear.
 * Disabled when either is 0; checked only once `window` hand-offs happened. Returns a reason or undefined.
 */
export function detectPingPong(targets: string[], window: number, minUnique: number): string | undefined {
  if (!window || !minUnique || targets.length < window) return undefined;
  const recent = targets.slice(-window);
  const unique = new Set(recent);
  if (unique.size >= minUnique) return undefined;
  return `repetitive hand-off detected: only ${unique.size} unique agent(s) (${[...unique].join(', ')}) in the last ${window} hand-offs (minimum ${minUnique})`;
}
