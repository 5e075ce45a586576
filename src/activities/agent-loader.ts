/**
 * loadAgent: fetch the compiled bundle from the blob store and hand the workflow its agent
 * WITHOUT `instructions`/`sections` (the model activity reads those from the bundle, so they reach
 * the model verbatim and never enter history; the view is built by src/runtime/agent-view-build.ts,
 * which a starter that holds the bundle uses too). Also the schema helpers shared by the model and
 * tool activities (ajv runs here, never in the workflow sandbox) and a minimal set of builtin tools.
 */
import type { ValidateFunction } from 'ajv';
import type { CompiledAgent, CompiledBundle, JsonObject, JsonSchema } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { createAjv } from '../compiler/ajv';
import type { BlobStore } from './blob-store';

// One implementation of the view, shared with the starters that put it in a run's start input.
export { agentView } from '../runtime/agent-view-build';

export class BundleCache {
  private readonly bundles = new Map<string, CompiledBundle>();
  constructor(readonly blobs: BlobStore) {}

  async bundle(ref: BlobRef): Promise<CompiledBundle> {
    const hit = this.bundles.get(ref.hash);
    if (hit) return hit;
    const b = await this.blobs.getJson<CompiledBundle>(ref);
    if (b?.format !== 'agentloom.compiled/v1') throw new Error(`blob ${ref.hash} is not a compiled bundle (format ${String(b?.format)})`);
    if (this.bundles.size > 50) this.bundles.clear();
    this.bundles.set(ref.hash, b);
    return b;
  }

  async agent(ref: BlobRef, agentId: string): Promise<{ bundle: CompiledBundle; agent: CompiledAgent }> {
    const bundle = await this.bundle(ref);
    const agent = bundle.agents[agentId];
    if (!agent) throw new Error(`agent '${agentId}' is not in bundle ${ref.hash} (agents: ${Object.keys(bundle.agents).join(', ')})`);
    return { bundle, agent };
  }
}

const ajv = createAjv();
const compiled = new Map<string, ValidateFunction>();

/** Validate `value` against `schema`; returns a readable error or undefined. */
export function schemaError(schema: JsonSchema | undefined, value: unknown): string | undefined {
  if (!schema || Object.keys(schema).length === 0) return undefined;
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(key, fn);
  }
  if (fn(value)) return undefined;
  return (fn.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` '${String(e.params.additionalProperty)}'` : ''}`).join('; ');
}

/** Minimal builtin tools (the full set lives in src/activities/tools.ts when present). */
export type BuiltinTool = (args: JsonObject, ctx: { idempotencyKey: string; heartbeat: () => void; signal?: AbortSignal }) => Promise<unknown>;

export const MINIMAL_BUILTINS: Record<string, BuiltinTool> = {
  async echo(args) {
    return args.text ?? args;
  },
  async arithmetic(args) {
    const a = Number(args.a);
    const b = Number(args.b);
    const op = String(args.op ?? 'add');
    switch (op) {
      case 'add': case '+': return a + b;
      case 'sub': case 'subtract': case '-': return a - b;
      case 'mul': case 'multiply': case '*': return a * b;
      case 'div': case 'divide': case '/':
        if (b === 0) throw new Error('division by zero');
        return a / b;
      default: throw new Error(`unknown op '${op}'`);
    }
  },
  async current_time() {
    return new Date().toISOString();
  },
  async fail(args) {
    throw new Error(String(args.message ?? 'tool failed'));
  },
  /** Sleeps `ms` milliseconds, heartbeating, and stops when cancelled. */
  async sleep(args, ctx) {
    const ms = Number(args.ms ?? 1000);
    const end = Date.now() + ms;
    while (Date.now() < end) {
      ctx.heartbeat();
      if (ctx.signal?.aborted) throw new Error('cancelled');
      await new Promise((r) => setTimeout(r, Math.min(200, end - Date.now())));
    }
    return `slept ${ms} ms`;
  },
};
