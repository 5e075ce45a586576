/**
 * `interface.output.render` applied to what `loom run` prints (the Agent Definition Specification: human-facing rendering
 * guidance). `format: json` (or no render) prints the output as indented JSON, as before;
 * `markdown` and `text` print a string output verbatim and an object output field by field
 * (markdown: `**field**: value`, lists as `- item`; text: `field: value`). `loom run --json` always
 * prints JSON (machine output). Pure; unit tested.
 */
import type { JsonObject, JsonValue } from '../compiled/types';

export type RenderFormat = 'json' | 'markdown' | 'text';

/** The format a render block asks for (unknown or absent: json). */
export function renderFormat(render: JsonObject | undefined): RenderFormat {
  const f = render?.format;
  return f === 'markdown' || f === 'text' ? f : 'json';
}

export function renderOutput(output: JsonValue, render: JsonObject | undefined): string {
  const format = renderFormat(render);
  if (format === 'json') return JSON.stringify(output, null, 2);
  if (typeof output === 'string') return output;
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return scalarOrList(output, format, '');
  return Object.entries(output)
    .map(([k, v]) => {
      const label = format === 'markdown' ? `**${k}**:` : `${k}:`;
      return Array.isArray(v) ? `${label}\n${scalarOrList(v, format, '')}` : `${label} ${scalarOrList(v, format, '')}`;
    })
    .join('\n');
}

function scalarOrList(v: JsonValue, format: RenderFormat, indent: string): string {
  if (Array.isArray(v)) return v.map((x) => `${indent}${format === 'markdown' ? '- ' : '  '}${scalarOrList(x, format, `${indent}  `)}`).join('\n');
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
