/** `loom audit`: prints an agent's or a run's audit entries, verifies the chain, exits 1 when it is broken. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { run } from '../../src/cli/commands/audit';
import { AuditRecord, sealEntry } from '../../src/governance/audit';

const rec = (wf: string, over: Partial<AuditRecord> = {}): AuditRecord => ({
  event: 'run', level: 'standard', agent_id: 'support', agent_version: '1.0.0', workflow_id: wf, run_id: `${wf}-r`,
  started_at: '2026-01-01T00:00:00.000Z', ended_at: '2026-01-01T00:00:01.000Z', outcome: 'success', tools: ['search'], ...over,
});

async function loom(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s) => { out += String(s); return true; });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => { err += String(s); return true; });
  try {
    return { code: await run(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

let home: string;
let file: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-audit-'));
  process.env.LOOM_HOME = home;
  fs.mkdirSync(path.join(home, 'audit'));
  file = path.join(home, 'audit', 'support.jsonl');
  const a = sealEntry(undefined, rec('wf-1'));
  const b = sealEntry(a, rec('wf-2', { outcome: 'refused', reason: "blocked_content 'medical_advice'", tools: [] }));
  fs.writeFileSync(file, `${JSON.stringify(a)}\n${JSON.stringify(b)}\n`);
});
afterEach(() => {
  delete process.env.LOOM_HOME;
  fs.rmSync(home, { recursive: true, force: true });
});

test('by agent id: every entry, then the verified chain', async () => {
  const r = await loom(['support']);
  expect(r.code).toBe(0);
  expect(r.out).toBe(
    '#1 2026-01-01T00:00:01.000Z wf-1 success tools: search\n' +
      "#2 2026-01-01T00:00:01.000Z wf-2 refused — blocked_content 'medical_advice'\n" +
      `chain verified: 2 entries in ${file}\n`,
  );
});

test('by workflow id: that run only; --json', async () => {
  const r = await loom(['wf-2', '--json']);
  expect(r.code).toBe(0);
  const [log] = JSON.parse(r.out);
  expect(log.entries.map((e: { workflow_id: string }) => e.workflow_id)).toEqual(['wf-2']);
  expect(log.chain).toEqual({ ok: true, entries: 2 });
});

test('a tampered entry breaks the chain: exit 1 with the line and why', async () => {
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"outcome":"refused"', '"outcome":"success"'));
  const r = await loom(['support']);
  expect(r.code).toBe(1);
  expect(r.out).toContain(`chain BROKEN in ${file} at line 2: hash does not match the entry (entry changed after it was written)`);
});

test('nothing logged under the id: exit 1 saying how entries get written', async () => {
  const r = await loom(['nobody']);
  expect(r.code).toBe(1);
  expect(r.err).toContain("no audit entry for 'nobody'");
  expect(r.err).toContain('policies.audit_level standard or full');
});
