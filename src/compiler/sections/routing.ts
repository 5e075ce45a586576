/** `routing`, and the tool manifest of an agent that can be invoked as a tool: its name, description, intents, examples and schemas. */
import { asArr, asObj, asStr, isObj, jsonObj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function compileToolManifest(_ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  if (asObj(d.orchestration).can_be_invoked_as_tool !== true) return;
  const routing = asObj(d.routing);
  const meta = asObj(d.meta);
  const itf = asObj(d.interface);
  const inSchema = asObj(itf.input).schema;
  const outSchema = asObj(itf.output).schema;
  const intents = asArr(routing.intents).filter((x): x is string => typeof x === 'string');
  const base = asStr(routing.tool_description) ?? asStr(meta.description) ?? asStr(meta.name) ?? b.agentId;
  b.toolManifest = {
    name: b.agentId,
    description: (base.trim() + (intents.length ? `\nIntents: ${intents.join(', ')}` : '')).trim(),
    intents,
    examples: asArr(routing.trigger_phrases).filter((x): x is string => typeof x === 'string'),
    parameters: isObj(inSchema) ? jsonObj(inSchema) : { type: 'object' },
    returns: isObj(outSchema) ? jsonObj(outSchema) : { type: 'object' },
  };
}
