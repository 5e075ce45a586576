/**
 * `interface`: the input and output JSON Schemas and their lint, the input examples an externally
 * facing agent should carry; then `ui` and `localization`, validated and then stripped except the
 * file constraints the runtime enforces at the boundary.
 */
import { isValidJsonSchema } from '../validate';
import { checkUi } from '../ui';
import { asArr, asObj, isObj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function compileInterface(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const itf = asObj(d.interface);
  const inSchema = asObj(itf.input).schema;
  const outSchema = asObj(itf.output).schema;
  for (const [io, s] of [['input', inSchema], ['output', outSchema]] as const) {
    if (s === undefined) continue;
    const r = isValidJsonSchema(s);
    if (!r.ok) ctx.err(['interface', io, 'schema'], 'AGF006', `invalid JSON Schema: ${r.message}; write e.g. \`{type: object, properties: {...}, required: [...]}\``);
  }
  if (isObj(outSchema) && (outSchema.additionalProperties === true || (outSchema.type === 'object' && !isObj(outSchema.properties))))
    ctx.warn(['interface', 'output', 'schema'], 'AGL003', 'output schema is too loose; list the `properties` and set `additionalProperties: false` (or justify it)');
  const examples = asArr(asObj(itf.input).examples);
  if (!examples.length && (d.ui !== undefined || d.routing !== undefined)) ctx.warn(['interface', 'input'], 'AGL002', 'externally facing agent (ui/routing declared) has no `interface.input.examples`; add one or two realistic inputs');
  const inProps = isObj(inSchema) && isObj(inSchema.properties) ? Object.keys(inSchema.properties) : isObj(inSchema) ? [] : undefined;
  b.fileFields = checkUi(ctx, d.ui, d.localization, inProps);
}
