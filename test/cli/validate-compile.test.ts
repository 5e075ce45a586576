/**
 * `loom validate` and `loom compile` as processes (bin/loom.js from source): exit codes, --json,
 * --strict, and the canonical bundle on stdout. In the integration project because each case starts
 * the CLI in its own process (the compiler's API itself is test/compiler/api.test.ts, a unit test).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync, spawnSync } from 'child_process';
import { canonicalJson, compileBundle } from '../../src/compiler';
import { BASE, EXAMPLE, ROOT } from '../compiler/helpers';

describe('CLI', () => {
  const loom = path.join(ROOT, 'bin', 'loom.js');
  const env = { ...process.env, LOOM_FROM_SOURCE: '1' };
  it('validate exits 0 on a clean registry and 1 on errors, --json prints an array', () => {
    expect(spawnSync('node', [loom, 'validate', EXAMPLE], { env }).status).toBe(0);
    const bad = spawnSync('node', [loom, 'validate', path.join(ROOT, 'test', 'fixtures', 'invalid', 'AGF007-unresolved-tool.agent.md'), '--registry', BASE, '--json'], { env });
    expect(bad.status).toBe(1);
    const arr = JSON.parse(bad.stdout.toString()) as Array<{ code: string }>;
    expect(arr.some((d) => d.code === 'AGF007')).toBe(true);
    // named after its agent_id (fx-agent), so the only findings are warnings (no AGF003)
    const warnOnly = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-warn-')), 'fx-agent.agent.md');
    fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'invalid', 'AGL006-hot.agent.md'), warnOnly);
    expect(spawnSync('node', [loom, 'validate', warnOnly, '--registry', BASE], { env }).status).toBe(0);
    expect(spawnSync('node', [loom, 'validate', warnOnly, '--registry', BASE, '--strict'], { env }).status).toBe(1);
  }, 60000);
  it('compile prints the canonical bundle', () => {
    const out = execFileSync('node', [loom, 'compile', 'customer-support-agent', '--registry', EXAMPLE], { env }).toString();
    expect(out.trim()).toBe(canonicalJson(compileBundle(EXAMPLE, 'customer-support-agent').bundle));
  }, 60000);
});
