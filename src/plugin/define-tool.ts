/**
 * Tools written in code, as Mastra's and AgentKit's `createTool` let users add them:
 * `defineTool({ name, description, input, execute(args, ctx) })`, given to AgentloomPlugin's
 * `tools`. `input` is a JSON Schema or a zod v4 schema (`import { z } from 'zod/v4'`), converted
 * with zod's own `toJSONSchema`. The compiled bundle stays the contract a run is pinned to: a
 * registry still declares the tool (`kind: code`, `code: { name }`), and `toolFile(tool)` writes
 * that declaration from the definition, so the schema the model sees is the definition's. A
 * compile that knows the worker's tools (AgentloomPlugin.compile, AgentloomClient's `code`) refuses
 * a name no tool has; at run time a `kind: code` tool the worker does not register fails the call
 * with a non-retryable `CodeToolNotRegistered` naming it and the registered ones. (A `kind:
 * builtin` declaration naming a defineTool tool still runs it, as before `kind: code` existed.)
 * At run time the activity checks the arguments against the compiled schema, then a zod `input`
 * parses them again (its transforms and refinements apply); a thrown error is the model's tool
 * error result, as for any builtin.
 */
import { ApplicationFailure } from '@temporalio/common';
import { toJSONSchema } from 'zod/v4';
import type { JsonObject } from '../compiled/types';
import type { ExternalToolContext, ExternalToolExecutor } from '../activities/react-tools';

/** A zod v4 schema, structurally (zod stays the user's import). */
interface ZodV4Like { _zod: unknown; safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }

/** The arguments `execute` gets: a zod schema's output type (defaults filled), else a JSON object. */
export type ToolArgs<Input> = Input extends { _zod: { output: infer O } } ? O : JsonObject;

export interface ToolDefinition<Input extends Record<string, unknown> | ZodV4Like = Record<string, unknown>> {
  /** The builtin name a tool file refers to (`builtin: { name }`), also its default tool_id. */
  name: string;
  description: string;
  /** A JSON Schema of the arguments (type: object), or a zod v4 object schema. */
  input: Input;
  execute(args: ToolArgs<Input>, ctx: ExternalToolContext): Promise<unknown> | unknown;
  /** Tool-file settings: side effects (default false) and human approval (default false). */
  sideEffects?: boolean;
  approvalRequired?: boolean;
}

export interface AgentloomTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly sideEffects: boolean;
  readonly approvalRequired: boolean;
  run(args: JsonObject, ctx: ExternalToolContext): Promise<unknown>;
}

const NAME = /^[A-Za-z][\w.-]{0,127}$/;

function isZod(input: unknown): input is ZodV4Like {
  return typeof input === 'object' && input !== null && '_zod' in input && typeof (input as ZodV4Like).safeParse === 'function';
}

export function defineTool<Input extends Record<string, unknown> | ZodV4Like>(def: ToolDefinition<Input>): AgentloomTool {
  if (!NAME.test(def.name ?? '')) throw new Error(`defineTool: name must be a letter then letters, digits, '_', '.' or '-' (up to 128), got '${def.name}'`);
  if (typeof def.execute !== 'function') throw new Error(`defineTool ${def.name}: execute must be a function`);
  if (!def.description?.trim()) throw new Error(`defineTool ${def.name}: a description is required (the model reads it)`);
  const input = def.input as unknown;
  let inputSchema: Record<string, unknown>;
  if (isZod(input)) {
    // zod's own converter (zod/v4 ships it); draft-07 as the registry's schemas, of what the model may send (defaults optional).
    const { $schema: _drop, ...schema } = toJSONSchema(input as unknown as Parameters<typeof toJSONSchema>[0], { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
    inputSchema = schema;
  } else if (typeof input === 'object' && input !== null && '_def' in input) {
    throw new Error(`defineTool ${def.name}: a zod v3 schema cannot be converted: use zod v4 (import { z } from 'zod/v4') or a JSON Schema`);
  } else if (typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'object') {
    inputSchema = input as Record<string, unknown>;
  } else {
    throw new Error(`defineTool ${def.name}: input must be a JSON Schema with type: object, or a zod v4 object schema`);
  }
  const zod = isZod(input) ? input : undefined;
  return {
    name: def.name,
    description: def.description.trim(),
    inputSchema,
    sideEffects: def.sideEffects ?? false,
    approvalRequired: def.approvalRequired ?? false,
    async run(args, ctx) {
      if (!zod) return def.execute(args as ToolArgs<Input>, ctx);
      const parsed = zod.safeParse(args);
      if (!parsed.success) {
        throw new Error(`invalid arguments for ${def.name}: ${parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ')}`);
      }
      return def.execute(parsed.data as ToolArgs<Input>, ctx);
    },
  };
}

/** The registry's tool file (`<tool_id>.tool.md`) that declares `tool` for agents to reference. */
export function toolFile(tool: AgentloomTool, opts: { toolId?: string; version?: string } = {}): string {
  const front = {
    tool_id: opts.toolId ?? tool.name,
    version: opts.version ?? '1.0.0',
    status: 'active',
    description: tool.description,
    kind: 'code',
    code: { name: tool.name },
    input_schema: tool.inputSchema,
    side_effects: tool.sideEffects,
    approval_required: tool.approvalRequired,
  };
  // JSON is YAML: the front matter needs no YAML writer.
  return `---\n${JSON.stringify(front, null, 2)}\n---\n\nDefined in code with defineTool; run by the worker's AgentloomPlugin.\n`;
}

/**
 * The tool executor of a worker with code-defined tools: a `kind: code` tool runs the one of `tools`
 * it names (none: a non-retryable CodeToolNotRegistered naming it and the registered ones); a `kind:
 * builtin` tool whose builtin name is one of `tools` runs it; every other tool goes to `fallback`
 * (the builtin registry and http).
 */
export function executorWithTools(tools: AgentloomTool[], fallback: ExternalToolExecutor): ExternalToolExecutor {
  const byName = new Map<string, AgentloomTool>();
  for (const t of tools) {
    if (byName.has(t.name)) throw new Error(`two tools named '${t.name}' given to AgentloomPlugin`);
    byName.set(t.name, t);
  }
  return (ctx) => {
    if (ctx.tool.kind === 'code') {
      const wanted = ctx.tool.code?.name ?? ctx.tool.tool_id;
      const tool = byName.get(wanted);
      if (tool) return tool.run(ctx.args ?? {}, ctx);
      return Promise.reject(ApplicationFailure.nonRetryable(
        `tool ${ctx.tool.tool_id} runs '${wanted}', a tool written in code that this worker does not register (registered: ${[...byName.keys()].sort().join(', ') || 'none'}); give defineTool({ name: '${wanted}', … }) to AgentloomPlugin's tools`,
        'CodeToolNotRegistered',
      ));
    }
    const name = ctx.tool.kind === 'builtin' ? ctx.tool.builtin?.name ?? ctx.tool.tool_id : undefined;
    const tool = name === undefined ? undefined : byName.get(name);
    return tool ? tool.run(ctx.args ?? {}, ctx) : fallback(ctx);
  };
}
