/**
 * `npm run replay:compat` — the cross-version determinism guard (test/compat/run-compat.ts).
 *
 *   npm run replay:compat                          base = test/compat/landed-version, current = working tree
 *   npm run replay:compat -- --base REV            another base (also LOOM_COMPAT_BASE)
 *   npm run replay:compat -- --current REV         a commit instead of the working tree (reproductions)
 *   npm run replay:compat -- --scenario NAME ...   only these scenarios
 *   npm run replay:compat -- --record --at REV     record the scenarios on REV (default: working tree)
 *                                                  as fixtures under test/fixtures/histories/compat/;
 *                                                  an existing scenario@version is kept unless named
 *                                                  with --overwrite scenario@version
 *
 * Starts its own Temporal dev server (or uses LOOM_TEST_TEMPORAL_ADDRESS) and a temp blob store.
 * Exits 1 when any scenario fails to replay or to finish on the current code, 2 on bad usage.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { startDevServer } from '../src/platform/temporal-dev-server';

const USAGE = 'usage: npm run replay:compat -- [--base REV] [--current REV] [--scenario NAME]... [--record [--at REV] [--overwrite SCENARIO@VERSION]...] [--list]';

function options(): ReturnType<typeof parse> {
  try {
    return parse();
  } catch (e) {
    process.stderr.write(`replay:compat: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

function parse() {
  return parseArgs({
    strict: true,
    allowPositionals: false,
    options: {
      base: { type: 'string' },
      current: { type: 'string' },
      scenario: { type: 'string', multiple: true },
      record: { type: 'boolean' },
      at: { type: 'string' },
      overwrite: { type: 'string', multiple: true },
      list: { type: 'boolean' },
    },
  }).values;
}

async function main(): Promise<number> {
  const opts = options();
  // Loaded after argument checks: they pull in ts-node-transpiled test code and the worker.
  const { SCENARIOS } = await import('../test/compat/scenarios');
  if (opts.list) {
    for (const s of SCENARIOS) process.stdout.write(`${s.name.padEnd(34)} ${s.waitsAt}${s.patches.length ? ` [${s.patches.join(', ')}]` : ''}\n`);
    return 0;
  }
  const { commitVersion, compatTmpDir, currentVersion, resolveCommit, sourceContains, ROOT } = await import('../test/compat/versions');
  const { formatReport, recordOn, runCompat, saveFixtures } = await import('../test/compat/run-compat');
  type ServerEnv = import('../test/compat/run-compat').ServerEnv;
  // Quiet: nondeterminism is reported in the table, not as a stream of core warnings.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} } } });
  const tmp = compatTmpDir();
  process.env.LOOM_STORE_DIR = fs.mkdtempSync(path.join(tmp, 'store-'));
  // One server for most scenarios; another per distinct dynamic config a scenario asks for.
  const servers: Awaited<ReturnType<typeof startDevServer>>[] = [];
  const closers: (() => Promise<void>)[] = [];
  const envs = new Map<string, Promise<ServerEnv>>();
  const connectTo = async (address: string): Promise<ServerEnv> => {
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    closers.push(() => native.close(), () => connection.close());
    return { client: new Client({ connection, namespace: 'default' }), connection: native };
  };
  const envFor = (s: { server?: Record<string, number> }): Promise<ServerEnv> => {
    const key = JSON.stringify(s.server ?? {});
    if (!envs.has(key)) {
      envs.set(
        key,
        (async () => {
          if (!s.server && process.env.LOOM_TEST_TEMPORAL_ADDRESS) return connectTo(process.env.LOOM_TEST_TEMPORAL_ADDRESS);
          const server = await startDevServer({ headless: true, fastSqlite: true, logFile: path.join(tmp, `temporal-${envs.size}.log`), ...(s.server ? { dynamicConfig: s.server } : {}) });
          servers.push(server);
          return connectTo(server.address);
        })(),
      );
    }
    return envs.get(key)!;
  };
  const disposers: (() => void)[] = [];
  try {
    if (opts.record) {
      const version = opts.at ? await commitVersion(opts.at, tmp) : await currentVersion(tmp);
      disposers.push(version.dispose);
      const names = opts.scenario ?? [];
      const scenarios = names.length ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
      const { runs, errors } = await recordOn(version, envFor, scenarios, `record-${version.label}-${Date.now()}`, true);
      for (const [name, err] of errors) process.stderr.write(`not recorded: ${name}: ${err}\n`);
      // A version has a patch when its workflow code calls patched() with the id (before the registry) or registers it (src/workflows/patches.ts).
      const needles = (patch: string) => [`patched('${patch}')`, `id: '${patch}'`];
      const existsAt = (patch: string) => needles(patch).some((n) => (version.commit ? sourceContains(version.commit, n) : grepTree(ROOT, n)));
      const added = saveFixtures(runs, version, existsAt, opts.overwrite ?? []);
      for (const e of added) process.stdout.write(`recorded ${e.file}${e.markers.length ? ` markers=[${e.markers.join(', ')}]` : ''}${e.before.length ? ` before=[${e.before.join(', ')}]` : ''}\n`);
      return errors.size ? 1 : 0;
    }
    const baseRev = opts.base ?? process.env.LOOM_COMPAT_BASE ?? fs.readFileSync(path.join(ROOT, 'test', 'compat', 'landed-version'), 'utf8').trim();
    resolveCommit(baseRev);
    const base = await commitVersion(baseRev, tmp);
    disposers.push(base.dispose);
    const current = opts.current ? await commitVersion(opts.current, tmp) : await currentVersion(tmp);
    disposers.push(current.dispose);
    const { result } = await runCompat(base, current, envFor, opts.scenario);
    process.stdout.write(`${formatReport(result, current.label)}\n`);
    return result.failures ? 1 : 0;
  } finally {
    for (const d of disposers) d();
    for (const c of closers) await c();
    for (const server of servers) await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Does the working tree's src/ contain `needle`? */
function grepTree(root: string, needle: string): boolean {
  const walk = (d: string): boolean =>
    fs.readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith('.ts') && fs.readFileSync(path.join(d, e.name), 'utf8').includes(needle)));
  return walk(path.join(root, 'src'));
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`replay:compat: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
