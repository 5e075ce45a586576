/**
 * A real Agentloom worker in its OWN process, for crash tests (test/helpers/spawn-worker.ts starts
 * it; the test SIGKILLs it). Built with the production createAgentloomWorker over the prebuilt
 * test bundle and the real activities (createActivities), plus a side-effecting test tool:
 *
 *   ledger_append {account, amount}   (a builtin tool with builtin name `ledger_append`)
 *
 * The tool applies its effect AT MOST ONCE per idempotency key (`<workflowId>/<callId>`): it
 * claims `<ledger>/keys/<key>.json` exclusively and appends one line to `<ledger>/effects.log`; a
 * retry of the same call finds the line and returns the result it records (a retry that finds the
 * claim but no line, its claimant killed in between, applies the effect). Progress markers go to
 * `<ledger>/markers.log`, one line each:
 *   tool-started <key> worker=<name> pid=<pid> attempt=<n>
 *   effect-applied <key> ... | effect-deduplicated <key> ...
 *   claim-without-effect <key> ...   (then effect-applied: the claimant died before its effect)
 *   tool-blocking <key> ...   (then the call sleeps, heartbeating, so the test can kill the worker)
 *   tool-finished <key> ...
 *
 * Environment:
 *   LOOM_TEST_TEMPORAL_ADDRESS  Temporal frontend (required)
 *   LOOM_WORKFLOW_BUNDLE        the prebuilt workflow bundle (spawn-worker passes LOOM_TEST_WORKFLOW_BUNDLE)
 *   LOOM_TASK_QUEUE             task queue (required)
 *   LOOM_STORE_DIR              blob store shared with the test process
 *   LOOM_CRASH_LEDGER_DIR       ledger directory (required)
 *   LOOM_CRASH_WORKER_NAME      name written into markers (default: pid)
 *   LOOM_CRASH_BLOCK_SECONDS    block inside each ledger_append call this long (default 0: no block)
 *   LOOM_CRASH_BLOCK_BEFORE     comma-separated call ids that block BEFORE applying their effect
 *                               (the others block after it, the harder case for exactly-once)
 *
 * Prints `READY <pid>` on stdout once the worker is running. Exits when stdin closes (the parent
 * died), so a crashed test run leaves no orphan worker behind.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { ExternalToolContext, ExternalToolExecutor } from '../../src/activities/react-tools';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { letTimePass } from './wait';

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`worker-process: ${name} is not set`);
  return v;
}

const ledgerDir = required('LOOM_CRASH_LEDGER_DIR');
const workerName = process.env.LOOM_CRASH_WORKER_NAME || String(process.pid);
const blockSeconds = Number(process.env.LOOM_CRASH_BLOCK_SECONDS || '0');
const blockBefore = new Set((process.env.LOOM_CRASH_BLOCK_BEFORE ?? '').split(',').map((s) => s.trim()).filter(Boolean));

fs.mkdirSync(path.join(ledgerDir, 'keys'), { recursive: true });

function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 0;
  }
}

function marker(kind: string, key: string, extra = ''): void {
  // Synchronous append: the line is on disk before the test can see it and SIGKILL us.
  fs.appendFileSync(path.join(ledgerDir, 'markers.log'), `${kind} ${key} worker=${workerName} pid=${process.pid} attempt=${attempt()}${extra}\n`);
}

async function block(ctx: ExternalToolContext): Promise<void> {
  marker('tool-blocking', ctx.idempotencyKey, ` seconds=${blockSeconds}`);
  const end = Date.now() + blockSeconds * 1000;
  while (Date.now() < end) {
    ctx.heartbeat();
    if (ctx.signal?.aborted) throw new Error('cancelled');
    await letTimePass(Math.min(500, end - Date.now()), 'the blocking tool\'s work: it lasts blockSeconds, heartbeating every 0.5 s');
  }
}

interface Effect {
  key: string;
  account: string;
  amount: number;
}

function effects(): Effect[] {
  const log = path.join(ledgerDir, 'effects.log');
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Effect);
}

/**
 * The result of the effect recorded for `key`, read from the effects log (the one source of
 * truth): the balance is the account's total up to and including that line. Undefined when the
 * key has no effect yet.
 */
function resultOf(key: string): string | undefined {
  const balances = new Map<string, number>();
  for (const e of effects()) {
    const balance = (balances.get(e.account) ?? 0) + e.amount;
    balances.set(e.account, balance);
    if (e.key === key) return `appended ${e.amount} to ${e.account}; balance ${balance}`;
  }
  return undefined;
}

/**
 * Apply the effect unless this key already applied it; return the result either way. The key file
 * is the exclusive claim; the effect line is what counts. A worker can be SIGKILLed between the
 * claim and the effect line, so a retry that finds the claim but no line applies the effect itself
 * (the claimant is dead: Temporal retries a call only after its attempt timed out or failed).
 */
function applyOnce(ctx: ExternalToolContext): string {
  const account = String(ctx.args.account);
  const amount = Number(ctx.args.amount);
  const keyFile = path.join(ledgerDir, 'keys', `${encodeURIComponent(ctx.idempotencyKey)}.json`);
  try {
    fs.closeSync(fs.openSync(keyFile, 'wx'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const stored = resultOf(ctx.idempotencyKey);
    if (stored !== undefined) {
      marker('effect-deduplicated', ctx.idempotencyKey);
      return stored;
    }
    marker('claim-without-effect', ctx.idempotencyKey);
  }
  fs.appendFileSync(path.join(ledgerDir, 'effects.log'), `${JSON.stringify({ key: ctx.idempotencyKey, account, amount, worker: workerName })}\n`);
  marker('effect-applied', ctx.idempotencyKey);
  return resultOf(ctx.idempotencyKey) as string;
}

const toolExecutor: ExternalToolExecutor = async (ctx) => {
  if (ctx.tool.builtin?.name !== 'ledger_append') throw new Error(`unknown builtin '${ctx.tool.builtin?.name ?? ctx.tool.tool_id}'`);
  marker('tool-started', ctx.idempotencyKey);
  const blocks = blockSeconds > 0;
  if (blocks && blockBefore.has(ctx.callId)) await block(ctx);
  const result = applyOnce(ctx);
  if (blocks && !blockBefore.has(ctx.callId)) await block(ctx);
  marker('tool-finished', ctx.idempotencyKey);
  return result;
};

async function main(): Promise<void> {
  // The parent (the test) holds our stdin: when it dies, stdin ends and we go too.
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: required('LOOM_TEST_TEMPORAL_ADDRESS') });
  const worker = await createAgentloomWorker({
    connection,
    taskQueue: required('LOOM_TASK_QUEUE'),
    activities: createActivities({ toolExecutor }) as unknown as Record<string, (...args: unknown[]) => unknown>,
  });
  const running = worker.run();
  process.stdout.write(`READY ${process.pid}\n`);
  await running;
  await connection.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`worker-process failed: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
