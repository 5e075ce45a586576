/**
 * fuseraft's phase-driven strategies (scattergather, mapreduce, adversarial), pure: fuseraft's
 * defaults, what each member is given as its input (the scatter-gather labels, the map-reduce item
 * and reducer texts, the adversarial generator input and the critic's firewalled input), the
 * splitter's item extraction at `ItemsJsonPath` and the critic's pass-keyword detection. The
 * workflows (src/workflows/strategies-*.ts) only sequence member runs around these functions.
 */
import { extractJsonObject, resolveField } from './json';
import { lineMatches, normalizeKeyword } from './keywords';
import type { AdversarialConfig, AdversarialStageConfig, MapReduceConfig, ScatterGatherConfig } from './types';

/** The phase strategies: with the routing types they are every fuseraft selection type, and all of them run. */
export const EXECUTED_PHASE_TYPES = ['scattergather', 'mapreduce', 'adversarial', 'llm', 'magentic'] as const;
export type ExecutedPhaseType = (typeof EXECUTED_PHASE_TYPES)[number];
export function isExecutedPhaseType(t: string | undefined): t is ExecutedPhaseType {
  return (EXECUTED_PHASE_TYPES as readonly string[]).includes(t ?? '');
}

/** fuseraft's defaults ("MapReduceConfig fields", "AdversarialConfig fields", "ScatterGatherConfig fields"). */
export const PHASE_DEFAULTS = { ItemsJsonPath: 'items', MaxConcurrency: 0, MaxSplitterRetries: 3, Rounds: 3, PassKeyword: 'APPROVED' } as const;

/** `MaxConcurrency` as a worker count for `n` tasks: 0 (or absent) = unlimited = all of them. */
export function concurrencyLimit(max: number | undefined, n: number): number {
  return max && max > 0 ? Math.min(Math.floor(max), Math.max(1, n)) : Math.max(1, n);
}

/**
 * The task as a `# Task` section. A sub-graph's task is the parent's member input, which already
 * opens with its own `# Task` section (the original task, then the conversation so far): it is used
 * as it is, so the reducer or synthesizer input does not start with `# Task` twice.
 */
export function taskSection(task: string): string {
  return task.startsWith('# Task\n') ? task : `# Task\n${task}`;
}

// ---- scattergather ----------------------------------------------------------------------------

export interface LabelledOutput { agent: string; text: string }

/** Every participant's output prefixed `[Participant: Name]`, in `Participants` order. */
export function labelParticipants(outputs: readonly LabelledOutput[]): string {
  return outputs.map((o) => `[Participant: ${o.agent}]\n${o.text}`).join('\n\n');
}

/** The synthesizer's input: the original task, then every labelled participant output. */
export function synthesizerInput(task: string, outputs: readonly LabelledOutput[]): string {
  return `${taskSection(task)}\n\n# Participant outputs\n\n${labelParticipants(outputs)}`;
}

export function scatterGatherOf(c: ScatterGatherConfig): Required<ScatterGatherConfig> {
  return { Participants: c.Participants, Synthesizer: c.Synthesizer, MaxConcurrency: c.MaxConcurrency ?? PHASE_DEFAULTS.MaxConcurrency };
}

// ---- mapreduce --------------------------------------------------------------------------------

export type ItemsResult = { ok: true; items: unknown[] } | { ok: false; reason: string };

/** A JSON value of `text` as a whole (object or array), or undefined. */
function parseWhole(text: string): unknown {
  try {
    return JSON.parse(text.trim()) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The work list in the splitter's reply: the array at `path` (dot notation) of the JSON object it
 * carries — raw JSON, a ```json fence, or the first `{` … last `}` (extractJsonObject's order).
 * A reply that is a bare JSON array is not accepted: fuseraft asks for an object with the array at
 * `ItemsJsonPath`, and the correction says so.
 */
export function extractItems(text: string, path: string): ItemsResult {
  const obj = extractJsonObject(text);
  if (!obj) {
    return Array.isArray(parseWhole(text))
      ? { ok: false, reason: `the reply is a bare JSON array; wrap it in an object with the array at "${path}"` }
      : { ok: false, reason: 'the reply carries no JSON object (raw, in a ```json fence, or embedded)' };
  }
  const v = resolveField(obj, path);
  if (v === undefined) return { ok: false, reason: `the JSON object has no field "${path}" (its keys: ${Object.keys(obj).join(', ') || 'none'})` };
  if (!Array.isArray(v)) return { ok: false, reason: `"${path}" is ${v === null ? 'null' : typeof v}, not an array` };
  return { ok: true, items: v };
}

/** The correction the splitter gets before a retry. */
export function splitterCorrection(path: string, reason: string): string {
  const example = path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), ['item 1', 'item 2']);
  return `Your previous reply could not be used: ${reason}. Reply with a JSON object whose "${path}" field is the array of work items, for example ${JSON.stringify(example)}.`;
}

/** The splitter's input: the task, and on a retry its previous reply and the correction. */
export function splitterInput(task: string, retry?: { previous: string; correction: string }): string {
  if (!retry) return task;
  return `${taskSection(task)}\n\n# Your previous reply\n${retry.previous}\n\n# Correction\n${retry.correction}`;
}

/** One mapper input: the item itself (a string as it is, anything else as JSON) — no other history. */
export function mapperInput(item: unknown): string {
  return typeof item === 'string' ? item : JSON.stringify(item, null, 2);
}

/** The reducer's input: the task, then every mapper output in item order. */
export function reducerInput(task: string, outputs: readonly string[]): string {
  return `${taskSection(task)}\n\n# Mapper outputs (${outputs.length} items, in item order)\n\n${outputs.map((o, i) => `[Item ${i + 1}]\n${o}`).join('\n\n')}`;
}

/**
 * A map-reduce sub-graph's map phase as one message of the parent's shared history (fuseraft: "all
 * its messages are streamed to the parent session"): one entry for the whole phase, not one per
 * item, so a split of thousands of items adds one bounded entry (the transcript caps its length).
 */
export function mapPhaseMessage(mapper: string, outputs: readonly string[]): string {
  return `[Map phase: ${outputs.length} item(s) mapped by ${mapper}, in item order]\n\n${outputs.map((o, i) => `[Item ${i + 1}]\n${o}`).join('\n\n')}`;
}

export function mapReduceOf(c: MapReduceConfig): Required<MapReduceConfig> {
  return {
    Splitter: c.Splitter, Mapper: c.Mapper, Reducer: c.Reducer,
    ItemsJsonPath: c.ItemsJsonPath ?? PHASE_DEFAULTS.ItemsJsonPath,
    MaxConcurrency: c.MaxConcurrency ?? PHASE_DEFAULTS.MaxConcurrency,
    MaxSplitterRetries: c.MaxSplitterRetries ?? PHASE_DEFAULTS.MaxSplitterRetries,
  };
}

// ---- adversarial ------------------------------------------------------------------------------

export function adversarialOf(c: AdversarialConfig): Required<AdversarialConfig> {
  return { Stages: c.Stages, Rounds: c.Rounds ?? PHASE_DEFAULTS.Rounds, PassKeyword: c.PassKeyword ?? PHASE_DEFAULTS.PassKeyword };
}

/** fuseraft's default label: "{Generator} → {Critic}". */
export function stageLabel(s: AdversarialStageConfig): string {
  return s.Label ?? `${s.Generator} → ${s.Critic}`;
}

/** The critic approved: `keyword` alone on a line (after stripping `*`/`_`), case-insensitive. */
export function criticPassed(text: string, keyword: string): boolean {
  const k = normalizeKeyword(keyword);
  return text.split(/\r?\n/).some((line) => lineMatches(line, k, 'strict'));
}

/**
 * The context firewall: the critic's input is the artifact and nothing else — no task, no shared
 * history, no generator reasoning (its system instructions are its own agent's).
 */
export function criticInput(artifact: string): string {
  return artifact;
}

export interface PromotedArtifact { label: string; artifact: string }

/**
 * A generator's input: the task, the artifacts promoted by earlier stages (the shared history of
 * this pipeline), and on a revision its previous artifact and the critique to address.
 */
export function generatorInput(task: string, promoted: readonly PromotedArtifact[], revision?: { artifact: string; critic: string; critique: string }): string {
  const parts = [`# Task\n${task}`];
  for (const p of promoted) parts.push(`# Approved artifact of stage "${p.label}"\n${p.artifact}`);
  if (revision) {
    parts.push(`# Your previous artifact\n${revision.artifact}`);
    parts.push(`# Critique from ${revision.critic}\n${revision.critique}\n\nRevise your artifact to address every point of the critique. Reply with the complete revised artifact.`);
  }
  return parts.join('\n\n');
}

/** One stage's outcome: which artifact is promoted and why. */
export interface StageOutcome {
  label: string;
  artifact: string;
  /** approved: the critic passed it in round `rounds`; exhausted: every round was used without approval. */
  outcome: 'approved' | 'exhausted';
  rounds: number;
}
