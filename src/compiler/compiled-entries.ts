/**
 * The registry objects an agent references, compiled on their own: models, tools and memory
 * collections. The agent's sections and fuseraft's strategies both read them, so they live apart
 * from either (compiled once per registry entry where a cache is kept).
 */
import type { CompiledCollection, CompiledModel, CompiledTool } from '../compiled/types';
import { MODEL_PROVIDERS, type ModelProvider } from '../compiled/types';
import type { Entry } from './registry';
import { asBool, asNum, asObj, asStr, isObj, json, jsonObj, statusOf, strip, type Obj } from './values';

export function compileModel(e: Entry): CompiledModel {
  const d = asObj(e.data);
  const provider: ModelProvider = (MODEL_PROVIDERS as readonly unknown[]).includes(d.provider) ? (d.provider as ModelProvider) : 'scripted';
  const m: CompiledModel = strip({
    model_id: e.id,
    version: asStr(d.version) ?? '0.0.0',
    status: statusOf(d),
    provider,
    ...(provider !== 'scripted' && isObj(d[provider]) ? { [provider]: json(d[provider]) } : {}),
    scripted: d.provider === 'scripted' ? (json(asObj(d.scripted)) as unknown as CompiledModel['scripted']) : undefined,
    context_window_tokens: asNum(d.context_window_tokens),
    max_output_tokens: asNum(d.max_output_tokens),
    supports_tools: asBool(d.supports_tools),
    supports_parallel_tool_calls: asBool(d.supports_parallel_tool_calls),
    supports_structured_output: asBool(d.supports_structured_output),
    temperature_range: Array.isArray(d.temperature_range) && d.temperature_range.length === 2 ? (json(d.temperature_range) as [number, number]) : undefined,
    // A Bedrock model's AWS region is its region for policies.data_residency when the file gives none.
    region: asStr(d.region) ?? (provider === 'bedrock' ? asStr(asObj(d.bedrock).region) : undefined),
  } as CompiledModel & Obj);
  return m;
}

/** The dotted paths of the input schema's properties marked `sensitive: true` (arrays as `name[]`). */
export function sensitiveFields(schema: unknown, prefix = '', out: string[] = [], depth = 0): string[] {
  if (!isObj(schema) || depth > 16) return out;
  const props = asObj(schema.properties);
  for (const k of Object.keys(props).sort()) {
    const p = asObj(props[k]);
    const name = prefix ? `${prefix}.${k}` : k;
    if (p.sensitive === true) out.push(name);
    sensitiveFields(p, name, out, depth + 1);
    if (isObj(p.items)) sensitiveFields(p.items, `${name}[]`, out, depth + 1);
  }
  return out;
}

const toolCache = new WeakMap<Entry, CompiledTool>();
export function compileTool(e: Entry): CompiledTool {
  let t = toolCache.get(e);
  if (!t) { t = compileToolUncached(e); toolCache.set(e, t); }
  return t;
}
function compileToolUncached(e: Entry): CompiledTool {
  const d = asObj(e.data);
  const kind = d.kind === 'http' || d.kind === 'agent' || d.kind === 'mcp' || d.kind === 'code' ? d.kind : 'builtin';
  return strip({
    tool_id: e.id,
    version: asStr(d.version) ?? '0.0.0',
    status: statusOf(d),
    description: asStr(d.description) ?? '',
    kind,
    input_schema: jsonObj(d.input_schema),
    output_schema: isObj(d.output_schema) ? jsonObj(d.output_schema) : undefined,
    approval_required: d.approval_required === true,
    max_calls_per_run: asNum(d.max_calls_per_run),
    sensitive_fields: sensitiveFields(d.input_schema),
    side_effects: d.side_effects === true,
    builtin: kind === 'builtin' && isObj(d.builtin) ? (json(d.builtin) as unknown as CompiledTool['builtin']) : undefined,
    http: kind === 'http' && isObj(d.http) ? (json(d.http) as unknown as CompiledTool['http']) : undefined,
    agent: kind === 'agent' && isObj(d.agent) ? { agent_id: String((d.agent as Obj).agent_id) } : undefined,
    code: kind === 'code' && isObj(d.code) ? { name: String((d.code as Obj).name) } : undefined,
    connector: asStr(d.connector),
    region: asStr(d.region),
  } as CompiledTool & Obj);
}

export function compileCollection(e: Entry): CompiledCollection {
  const d = asObj(e.data);
  const scope = d.scope === 'project' || d.scope === 'user' ? d.scope : 'session';
  const wb = asObj(d.writeback);
  return {
    collection_id: e.id, version: asStr(d.version) ?? '0.0.0', status: statusOf(d), scope,
    backend: { ...jsonObj(d.backend), type: asStr(asObj(d.backend).type) ?? 'memory' },
    writeback: strip({ enabled: wb.enabled === true, strategy: asStr(wb.strategy), approval_required: asBool(wb.approval_required) }),
  };
}
