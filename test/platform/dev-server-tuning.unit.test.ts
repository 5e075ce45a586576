/**
 * The dynamic config the project starts its dev server with (DEV_SERVER_TUNING): what reaches the
 * Temporal CLI's command line. A stand-in CLI records its arguments and exits, so no server starts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEV_SERVER_TUNING, startDevServer } from '../../src/platform/temporal-dev-server';

let dir: string;
let saved: string | undefined;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-dev-tuning-'));
  const cli = path.join(dir, 'temporal');
  fs.writeFileSync(cli, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "${dir}/args-$$"\nexit 3\n`, { mode: 0o755 });
  saved = process.env.TEMPORAL_CLI_PATH;
  process.env.TEMPORAL_CLI_PATH = cli;
});

afterAll(() => {
  if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
  else process.env.TEMPORAL_CLI_PATH = saved;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The dynamic config values the CLI was started with, by key. */
async function dynamicConfigOf(opts: Parameters<typeof startDevServer>[0]): Promise<Record<string, string>> {
  for (const f of fs.readdirSync(dir)) if (f.startsWith('args-')) fs.rmSync(path.join(dir, f));
  await expect(startDevServer({ headless: true, logFile: path.join(dir, 'server.log'), ...opts })).rejects.toThrow(/exited with code 3/);
  const [file] = fs.readdirSync(dir).filter((f) => f.startsWith('args-'));
  const args = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
  const out: Record<string, string> = {};
  args.forEach((a, i) => {
    if (a === '--dynamic-config-value') {
      const [k, ...v] = args[i + 1].split('=');
      out[k] = v.join('=');
    }
  });
  return out;
}

test('the transfer queue may load new workflow tasks more often than 20 times a second', () => {
  expect(DEV_SERVER_TUNING['history.transferProcessorMaxPollRPS']).toBeGreaterThanOrEqual(200);
});

test('every dev server the project starts gets the tuning, as JSON values', async () => {
  const dc = await dynamicConfigOf({});
  for (const [k, v] of Object.entries(DEV_SERVER_TUNING)) expect(dc[k]).toBe(JSON.stringify(v));
});

test('a caller overrides one value, and tuning: false starts the server with Temporal defaults', async () => {
  expect((await dynamicConfigOf({ dynamicConfig: { 'history.transferProcessorMaxPollRPS': 50 } }))['history.transferProcessorMaxPollRPS']).toBe('50');
  expect(await dynamicConfigOf({ tuning: false })).toEqual({});
});
