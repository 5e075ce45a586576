/**
 * The cross-version determinism guard. For a base version (the last landed commit) and the current
 * tree it
 *   1. runs every scenario of the catalogue on the BASE version's worker (its workflows and its
 *      activities) up to the scenario's waiting point, and records the history of the root and of
 *      every member;
 *   2. replays every recorded history against the CURRENT workflow bundle, naming the scenario, the
 *      workflow and the first mismatching command of any failure;
 *   3. upgrades the task queue to the CURRENT worker and finishes every run from where it waited,
 *      checking that no workflow task fails and that each run returns exactly its expected output.
 * This is what a deploy does to in-flight runs, so a change that would break one fails here.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { SCENARIOS, Scenario } from './scenarios';
import { CodeVersion, workerFor } from './versions';
import { Member, WIRE, answerAll, driveToEnd, patchMarkers, runTree, workflowTaskFailure } from './tree';
import { store } from '../orchestration/builders';
import { NO_TELEMETRY_SINKS } from '../helpers/temporal';
import { until } from '../helpers/wait';

export interface RecordedRun {
  scenario: Scenario;
  rootId: string;
  /** Every history of the tree; `run` counts the runs of one workflow id (continue-as-new), from 1. */
  members: { workflowId: string; run: number; history: temporal.api.history.v1.IHistory }[];
}

/** A Temporal server to run scenarios on: the default one, or one started with a scenario's dynamic config. */
export interface ServerEnv {
  client: Client;
  connection: NativeConnection;
}
export type EnvFor = (s: Scenario) => Promise<ServerEnv>;

/** Group scenarios by the server they need, keeping catalogue order inside each group. */
async function byServer<T>(scenarios: Scenario[], envFor: EnvFor, fn: (env: ServerEnv, group: Scenario[]) => Promise<T[]>): Promise<T[]> {
  const groups = new Map<ServerEnv, Scenario[]>();
  for (const s of scenarios) {
    const env = await envFor(s);
    groups.set(env, [...(groups.get(env) ?? []), s]);
  }
  const out: T[] = [];
  for (const [env, group] of groups) out.push(...(await fn(env, group)));
  return out;
}

function membersOf(tree: Member[]): RecordedRun['members'] {
  return tree.flatMap((m) => [...(m.earlier ?? []), m.history].map((history, i) => ({ workflowId: m.workflowId, run: i + 1, history })));
}

export interface ScenarioReport {
  scenario: string;
  waitsAt: string;
  histories: number;
  replayed: number;
  replayFailures: string[];
  /** undefined when the run finished on the new code with its expected output. */
  finishError?: string;
  /** The scenario could not be driven to its waiting point on the base version. */
  recordError?: string;
}

const shortId = () => Math.random().toString(36).slice(2, 8);

/** Start one scenario and answer decisions until its waiting point; return the tree then. */
async function driveToWaitingPoint(client: Client, taskQueue: string, s: Scenario, rootId: string, endedIsFine = false): Promise<Member[]> {
  const ref = await store(s.bundle());
  const args = [{ bundle: ref, agent_id: s.bundle().root, input: s.input, ...(s.options ? { options: s.options } : {}), ...(s.carried ? { carried: s.carried } : {}), ...(s.startArgs ?? {}) }];
  if (s.startPaused) await client.workflow.signalWithStart(s.workflowType, { taskQueue, workflowId: rootId, args, signal: WIRE.pause, signalArgs: [] });
  else await client.workflow.start(s.workflowType, { taskQueue, workflowId: rootId, args });
  if (s.drive) await s.drive(client, rootId);
  let tree: Member[] = [];
  return until(
    async () => {
      tree = await runTree(client, rootId);
      const failed = tree.map((m) => workflowTaskFailure(m.history)).find(Boolean);
      if (failed) throw new Error(`scenario ${s.name}: a workflow task failed on the recording version: ${failed}`);
      // Record only once every open run has finished its workflow task (a complete, idle history).
      if (s.ready(tree) && tree.every(idle)) return tree;
      if (!tree[0]?.open) {
        if (endedIsFine) return tree;
        throw new Error(`scenario ${s.name} ended before reaching: ${s.waitsAt}`);
      }
      // Answer what stands before the waiting point (e.g. the first loop iteration's approval).
      if (s.answerBeforeReady && !s.ready(tree)) await answerAll(client, tree);
      return undefined;
    },
    () => `scenario ${s.name} to reach "${s.waitsAt}"; tree: ${tree.map((m) => `${m.workflowId}=${m.status?.state ?? (m.open ? 'open' : 'closed')}`).join(', ')}`,
    60_000,
    150,
  );
}

/** The run's latest workflow task has completed (nothing is being decided right now). */
function idle(m: Member): boolean {
  if (!m.open) return true;
  let scheduled = -1;
  let completed = -1;
  (m.history.events ?? []).forEach((e, i) => {
    if (e.workflowTaskScheduledEventAttributes) scheduled = i;
    if (e.workflowTaskCompletedEventAttributes) completed = i;
  });
  return completed > scheduled;
}

/**
 * Step 1: the scenarios on `version`'s workers, recorded at their waiting points (every scenario
 * settles before this returns). With `complete`, each run is then finished on the same version and
 * recorded whole (every run of every member): the fixtures that prove both sides of a patch.
 */
export async function recordOn(version: CodeVersion, envFor: EnvFor, scenarios: Scenario[], taskQueue: string, complete = false): Promise<{ runs: RecordedRun[]; errors: Map<string, string> }> {
  const settled = await byServer(scenarios, envFor, async ({ client, connection }, group) => {
    const worker = await workerFor(version, connection, taskQueue);
    return worker.runUntil(
      Promise.allSettled(
        group.map(async (s): Promise<RecordedRun> => {
          const rootId = `compat-${s.name}-${version.label}-${shortId()}`;
          let tree = await driveToWaitingPoint(client, taskQueue, s, rootId, complete);
          if (complete) {
            if (tree[0]?.open && s.resume) await s.resume(client, rootId);
            const res = await driveToEnd(client, rootId);
            if (!res.ok && /workflow task failed/.test(res.error)) throw new Error(res.error);
            tree = await runTree(client, rootId, true);
          }
          return { scenario: s, rootId, members: membersOf(tree) };
        }),
      ),
    ).then((rs) => rs.map((r, i) => ({ r, s: group[i] })));
  });
  const runs: RecordedRun[] = [];
  const errors = new Map<string, string>();
  for (const { r, s } of settled) {
    if (r.status === 'fulfilled') runs.push(r.value);
    else errors.set(s.name, (r.reason as Error)?.message ?? String(r.reason));
  }
  return { runs, errors };
}

/** Step 2: replay every recorded history against `version`'s bundle. */
export async function replayOn(version: CodeVersion, runs: RecordedRun[]): Promise<Map<string, string[]>> {
  const failures = new Map<string, string[]>(runs.map((r) => [r.scenario.name, []]));
  const owner = new Map<string, string>();
  const histories = runs.flatMap((r) => r.members.map((m) => (owner.set(m.workflowId, r.scenario.name), { workflowId: m.workflowId, history: m.history })));
  // (Runs of one id share its workflowId: the replayer reports each history in order.)
  let seen = 0;
  for await (const res of Worker.runReplayHistories({ workflowBundle: { codePath: version.bundlePath }, replayName: `compat-${version.label}`, sinks: NO_TELEMETRY_SINKS }, histories)) {
    seen++;
    if (res.error) failures.get(owner.get(res.workflowId) ?? '?')!.push(`${res.workflowId}: ${describeReplayError(res.error)}`);
  }
  if (seen !== histories.length) throw new Error(`replayed ${seen} of ${histories.length} histories`);
  return failures;
}

/** A nondeterminism error in words: the first history event the new code's commands disagree with. */
export function describeReplayError(err: unknown): string {
  const msg = (err as Error)?.message ?? String(err);
  const nde = /Nondeterminism error: ([^"]*?)(?:",|$)/.exec(msg);
  const ev = /HistoryEvent\(id: (\d+), (\w+)\)/.exec(msg);
  if (nde && ev) return `nondeterminism at history event ${ev[1]} (${ev[2]}): the current code issues a different command there — ${nde[1]}`;
  return nde ? `nondeterminism: ${nde[1]}` : msg;
}

/** What is wrong with a finished run's outcome for its scenario (undefined: as expected). */
export function outcomeProblem(s: Scenario, res: { ok: true; output: unknown } | { ok: false; error: string }): string | undefined {
  if (s.expectedError) {
    if (res.ok) return `completed with ${JSON.stringify(res.output)}, expected a failure matching ${s.expectedError}`;
    return s.expectedError.test(res.error) ? undefined : `failed with "${res.error}", expected ${s.expectedError}`;
  }
  if (!res.ok) return res.error;
  return JSON.stringify(res.output) === JSON.stringify(s.expected) ? undefined : `output ${JSON.stringify(res.output)}, expected ${JSON.stringify(s.expected)}`;
}

/** Step 3: the current workers take over the queues and finish every run. */
export async function finishOn(version: CodeVersion, envFor: EnvFor, runs: RecordedRun[], taskQueue: string): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  await byServer(
    runs.map((r) => r.scenario),
    envFor,
    async ({ client, connection }, group) => {
      const worker = await workerFor(version, connection, taskQueue);
      await worker.runUntil(
        Promise.all(
          runs
            .filter((r) => group.includes(r.scenario))
            .map(async (r) => {
              try {
                if (r.scenario.resume && r.members[0]?.history && !endsRun(r.members[0].history)) await r.scenario.resume(client, r.rootId);
                out.set(r.scenario.name, outcomeProblem(r.scenario, await driveToEnd(client, r.rootId)));
              } catch (e) {
                out.set(r.scenario.name, (e as Error).message);
              }
            }),
        ),
      );
      return [];
    },
  );
  return out;
}

/** Is commit `a` an ancestor of (or equal to) commit `b`? */
function isAncestor(a: string, b: string): boolean {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', a, b], { cwd: path.resolve(__dirname, '..', '..'), stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function endsRun(h: temporal.api.history.v1.IHistory): boolean {
  const last = h.events?.[h.events.length - 1];
  return Boolean(last?.workflowExecutionCompletedEventAttributes || last?.workflowExecutionFailedEventAttributes || last?.workflowExecutionContinuedAsNewEventAttributes);
}

export interface CompatResult {
  base: string;
  /** Scenarios whose `since` the base predates (not run, not failures). */
  skipped?: string[];
  reports: ScenarioReport[];
  failures: number;
}

/** The whole guard: record on `base`, replay and finish on `current`. */
export async function runCompat(base: CodeVersion, current: CodeVersion, envFor: EnvFor, names?: string[]): Promise<{ result: CompatResult; runs: RecordedRun[] }> {
  const scenarios = names?.length ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  if (names?.length && scenarios.length !== names.length) {
    const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
    throw new Error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  // A scenario of a feature the base predates (`since` not an ancestor of it) cannot run there: skipped, not failed.
  const skipped = scenarios.filter((s) => s.since && base.commit && !isAncestor(s.since, base.commit)).map((s) => s.name);
  const runnable = scenarios.filter((s) => !skipped.includes(s.name));
  const taskQueue = `compat-${base.label}-${shortId()}`;
  const { runs, errors } = await recordOn(base, envFor, runnable, taskQueue);
  const replay = await replayOn(current, runs);
  // A run that does not replay cannot finish either (its workflow task fails on every attempt).
  const replayable = runs.filter((r) => !replay.get(r.scenario.name)?.length);
  const finish = await finishOn(current, envFor, replayable, taskQueue);
  for (const r of runs) if (!replayable.includes(r)) finish.set(r.scenario.name, 'not attempted: the recorded histories do not replay');
  const reports: ScenarioReport[] = runnable.filter((s) => errors.has(s.name)).map((s) => ({
    scenario: s.name,
    waitsAt: s.waitsAt,
    histories: 0,
    replayed: 0,
    replayFailures: [],
    recordError: errors.get(s.name),
  }));
  reports.push(...runs.map((r) => ({
    scenario: r.scenario.name,
    waitsAt: r.scenario.waitsAt,
    histories: r.members.length,
    replayed: r.members.length,
    replayFailures: replay.get(r.scenario.name) ?? [],
    finishError: finish.get(r.scenario.name),
  })));
  const failures = reports.filter((r) => r.recordError || r.replayFailures.length || r.finishError).length;
  return { result: { base: base.label, reports, failures, skipped }, runs };
}

/** A fixed-width table of the reports, for people and CI logs. */
export function formatReport(res: CompatResult, current: string): string {
  const lines = [`replay:compat — recorded on ${res.base}, replayed and finished on ${current}`, ''];
  const w = Math.max(...res.reports.map((r) => r.scenario.length), 8);
  lines.push(`${'scenario'.padEnd(w)}  histories  replay  finish  waiting point`);
  for (const r of res.reports) {
    const replay = r.recordError ? '-' : r.replayFailures.length ? 'FAIL' : 'ok';
    const finish = r.recordError ? '-' : r.finishError ? 'FAIL' : 'ok';
    lines.push(`${r.scenario.padEnd(w)}  ${String(r.histories).padStart(9)}  ${replay.padStart(6)}  ${finish.padStart(6)}  ${r.waitsAt}`);
  }
  const total = res.reports.reduce((n, r) => n + r.histories, 0);
  lines.push('', `${res.reports.length} scenarios, ${total} histories recorded, ${total} replayed, ${res.failures} failure(s)`);
  if (res.skipped?.length) lines.push(`skipped (the base predates them): ${res.skipped.join(', ')}`);
  for (const r of res.reports) {
    if (r.recordError) lines.push(`  RECORD ${r.scenario}: ${r.recordError}`);
    for (const f of r.replayFailures) lines.push(`  REPLAY ${r.scenario}: ${f}`);
    if (r.finishError) lines.push(`  FINISH ${r.scenario}: ${r.finishError}`);
  }
  return lines.join('\n');
}

export interface FixtureEntry {
  file: string;
  scenario: string;
  workflow_id: string;
  workflow_type: string;
  recorded_at: string;
  /** Patch ids whose markers the history holds (the new side of each patch). */
  markers: string[];
  /** Patch ids the scenario reaches that did not exist at `recorded_at` (the old side of each patch). */
  before: string[];
}

export const FIXTURE_DIR = path.resolve(__dirname, '..', 'fixtures', 'histories', 'compat');
export const MANIFEST = path.join(FIXTURE_DIR, 'manifest.json');

export function readManifest(): FixtureEntry[] {
  return fs.existsSync(MANIFEST) ? (JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as FixtureEntry[]) : [];
}

/**
 * Save recorded runs as fixtures: one file per history, named `<scenario>@<version>/<member>.json`.
 * Never overwrites a fixture unless its scenario@version is named in `overwrite`.
 */
export function saveFixtures(runs: RecordedRun[], version: CodeVersion, existsAt: (patch: string) => boolean, overwrite: string[]): FixtureEntry[] {
  const manifest = readManifest();
  const added: FixtureEntry[] = [];
  for (const r of runs) {
    const key = `${r.scenario.name}@${version.label}`;
    const dir = path.join(FIXTURE_DIR, key);
    if (fs.existsSync(dir) && !overwrite.includes(key)) throw new Error(`fixtures ${path.relative(process.cwd(), dir)} exist; name them with --overwrite ${key} to record them again`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const kept = manifest.filter((e) => !e.file.startsWith(`${key}/`));
    manifest.length = 0;
    manifest.push(...kept);
    for (const m of r.members) {
      const member = m.workflowId.slice(r.rootId.length).replace(/^\//, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'root';
      const rel = member + (m.run > 1 || r.members.some((x) => x.workflowId === m.workflowId && x.run > 1) ? `.run${m.run}` : '');
      const file = `${key}/${rel}.json`;
      fs.writeFileSync(path.join(FIXTURE_DIR, file), historyToJSON(m.history));
      const markers = patchMarkers(m.history);
      const entry: FixtureEntry = {
        file,
        scenario: r.scenario.name,
        workflow_id: m.workflowId,
        recorded_at: version.commit ?? 'working-tree',
        markers,
        workflow_type: String(m.history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? ''),
        // A claim about the scenario: the patch points it reaches ran the code before those patches.
        before: r.scenario.patches.filter((p) => !existsAt(p)),
      };
      manifest.push(entry);
      added.push(entry);
    }
  }
  manifest.sort((a, b) => a.file.localeCompare(b.file));
  fs.writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  return added;
}

