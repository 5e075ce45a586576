/**
 * What `loom status` prints for a strategies run, from the `progress` its status query exposes
 * (strategy, phase, round, participants and what each strategy adds). Pure: the CLI
 * renders these lines above the raw `progress:` JSON.
 */
/** A status progress value (JSON), typed here so this module imports nothing outside src/strategies. */
type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
type JsonObject = { [k: string]: JsonValue };

const str = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: JsonValue | undefined): number | undefined => (typeof v === 'number' ? v : undefined);
const names = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The round a strategy is in: its `round` (adversarial, magentic), its turn (llm and routing), or a single pass. */
function roundOf(p: JsonObject): string | undefined {
  const round = num(p.round);
  if (round !== undefined) {
    const max = num(p.max_rounds) ?? num(p.rounds);
    return `round ${round}${max !== undefined ? ` of ${max}` : ''}`;
  }
  const turn = num(p.iteration);
  if (turn !== undefined) return `turn ${turn}`;
  // scattergather and mapreduce run once through their phases (a Splitter retry shows as its attempt).
  return p.phase === 'done' ? undefined : 'round 1 of 1 (single pass)';
}

/** Lines for a progress object that names a strategy; none for any other progress. */
export function strategyStatusLines(progress: JsonObject | undefined): string[] {
  const p = progress ?? {};
  const strategy = str(p.strategy);
  if (!strategy) return [];
  const head = [`strategy: ${strategy}`];
  const phase = str(p.phase) ?? str(p.position);
  if (phase) head.push(`${str(p.phase) ? 'phase' : 'position'}: ${phase}`);
  const round = roundOf(p);
  if (round) head.push(round);
  const stage = num(p.stage);
  if (stage !== undefined) head.push(`stage ${stage}${num(p.stages) !== undefined ? ` of ${num(p.stages)}` : ''}${str(p.label) ? ` "${str(p.label)}"` : ''}`);
  const lines = [head.join('  ')];
  const who = names(p.participants);
  const extra: string[] = [];
  for (const [k, label] of [['speaker', 'speaking'], ['synthesizer', 'synthesizer'], ['splitter', 'splitter'], ['mapper', 'mapper'], ['reducer', 'reducer'], ['generator', 'generator'], ['critic', 'critic']] as const) {
    const v = str(p[k]);
    if (v) extra.push(`${label}: ${v}`);
  }
  // Routing strategies name only the speaker.
  if (who.length || extra.length) lines.push([...(who.length ? [`participants: ${who.join(', ')}`] : []), ...extra].join('  '));
  const facts: string[] = [];
  const completed = num(p.completed);
  const total = num(p.items) ?? (p.phase === 'scatter' ? who.length : undefined);
  if (completed !== undefined) facts.push(`completed ${completed}${total !== undefined ? ` of ${total}` : ''}`);
  else if (num(p.items) !== undefined) facts.push(`items ${num(p.items)}`);
  if (num(p.attempt) !== undefined) facts.push(`attempt ${num(p.attempt)}`);
  if (num(p.max_concurrency) !== undefined) facts.push(`max concurrency ${num(p.max_concurrency) || 'unlimited'}`);
  if (num(p.stalls) !== undefined) facts.push(`stalls ${num(p.stalls)}`);
  if (num(p.resets) !== undefined) facts.push(`resets ${num(p.resets)}`);
  if (str(p.last_signal)) facts.push(`last signal: ${str(p.last_signal)}`);
  if (facts.length) lines.push(facts.join('  '));
  if (str(p.stopped)) lines.push(`stopped: ${str(p.stopped)}`);
  return lines;
}

/** The Web UI's Current Details tail for a phase step: its round and participants (`round 2 of 3; participants: G, C`). */
export function strategyDetailsTail(progress: JsonObject): string {
  const who = names(progress.participants);
  return [roundOf(progress), ...(who.length ? [`participants: ${who.join(', ')}`] : [])].filter((x): x is string => !!x).join('; ');
}
