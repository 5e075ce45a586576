/**
 * The Step Execution Modes, pure planning and text rules:
 *  - Sequential (default): each step gets the previous step's output as {{input}};
 *  - FanOut: consecutive FanOut steps form one parallel group, all given the same input;
 *  - Collect: gets the preceding FanOut group's outputs joined with "\n\n---\n\n";
 *  - Conditional: runs only if the previous output contains `condition` (case-insensitive),
 *    otherwise it is skipped and the input passes through;
 *  - Loop: repeats, each output the next input, until the output contains `until`
 *    (case-insensitive) or `max_iterations` is reached.
 * `{{input}}` and `{{<output_var>}}` templates are expanded in prompt_template.
 */
import type { JsonValue, StepDefinition } from '../compiled/types';

export const COLLECT_SEPARATOR = '\n\n---\n\n';

export type StepStage =
  | { kind: 'sequential'; step: StepDefinition; index: number }
  | { kind: 'fanout'; steps: { step: StepDefinition; index: number }[] }
  | { kind: 'collect'; step: StepDefinition; index: number }
  | { kind: 'conditional'; step: StepDefinition; index: number; condition: string }
  | { kind: 'loop'; step: StepDefinition; index: number; max_iterations: number; until?: string };

export function modeOf(step: StepDefinition): 'Sequential' | 'FanOut' | 'Collect' | 'Conditional' | 'Loop' {
  const m = step.mode;
  if (m === undefined || m === 'Sequential') return 'Sequential';
  if (m === 'FanOut' || m === 'Collect') return m;
  if (typeof m === 'object' && m && 'Conditional' in m) return 'Conditional';
  if (typeof m === 'object' && m && 'Loop' in m) return 'Loop';
  throw new Error(`step '${step.name}': unknown mode ${JSON.stringify(m)}`);
}

/** Group the steps into stages (consecutive FanOut steps become one parallel stage). */
export function planSteps(steps: StepDefinition[]): StepStage[] {
  const stages: StepStage[] = [];
  steps.forEach((step, index) => {
    const mode = modeOf(step);
    const m = step.mode as Exclude<StepDefinition['mode'], string | undefined>;
    switch (mode) {
      case 'FanOut': {
        const last = stages[stages.length - 1];
        if (last && last.kind === 'fanout') last.steps.push({ step, index });
        else stages.push({ kind: 'fanout', steps: [{ step, index }] });
        break;
      }
      case 'Collect':
        stages.push({ kind: 'collect', step, index });
        break;
      case 'Conditional':
        stages.push({ kind: 'conditional', step, index, condition: (m as { Conditional: { condition: string } }).Conditional.condition });
        break;
      case 'Loop': {
        const l = (m as { Loop: { max_iterations: number; until?: string } }).Loop;
        stages.push({ kind: 'loop', step, index, max_iterations: l.max_iterations, until: l.until });
        break;
      }
      default:
        stages.push({ kind: 'sequential', step, index });
    }
  });
  return stages;
}

/** Problems with a steps list (empty = valid). */
export function checkSteps(steps: StepDefinition[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  steps.forEach((s, i) => {
    if (!s.name) problems.push(`step ${i}: name is required`);
    if (names.has(s.name)) problems.push(`step '${s.name}': duplicate name`);
    names.add(s.name);
    if (!s.agent || typeof s.agent.ByName !== 'string') problems.push(`step '${s.name}': agent must be {"ByName": "<agent_id>"}`);
    try {
      const m = modeOf(s);
      if (m === 'Loop') {
        const l = (s.mode as { Loop: { max_iterations: number } }).Loop;
        if (!Number.isInteger(l.max_iterations) || l.max_iterations < 1) problems.push(`step '${s.name}': Loop.max_iterations must be a positive integer`);
      }
      if (m === 'Conditional' && typeof (s.mode as { Conditional: { condition: string } }).Conditional?.condition !== 'string') {
        problems.push(`step '${s.name}': Conditional.condition must be a string`);
      }
    } catch (e) {
      problems.push((e as Error).message);
    }
  });
  return problems;
}

/** A value as step text: strings as-is, anything else as JSON. */
export function asText(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Expand `{{input}}` and `{{<var>}}` (output_var names). Unknown placeholders are left as written.
 * Without a template the step's input is `{{input}}`.
 */
export function renderTemplate(template: string | undefined, input: string, vars: Record<string, string>): string {
  if (template === undefined) return input;
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, name: string) => {
    if (name === 'input') return input;
    if (Object.prototype.hasOwnProperty.call(vars, name)) return vars[name];
    return whole;
  });
}

export function containsCI(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase());
}

export function joinCollected(outputs: string[]): string {
  return outputs.join(COLLECT_SEPARATOR);
}
