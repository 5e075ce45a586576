/** The audit log's hash chain: entries link and verify; a changed, removed or reordered line is detected. */
import { AuditRecord, sealEntry, verifyChain } from '../../src/governance/audit';

const rec = (n: number, over: Partial<AuditRecord> = {}): AuditRecord => ({
  event: 'run', level: 'standard', agent_id: 'a', agent_version: '1.0.0', workflow_id: `wf-${n}`, run_id: `r-${n}`,
  started_at: '2026-01-01T00:00:00.000Z', ended_at: '2026-01-01T00:00:01.000Z', outcome: 'success', tools: [], ...over,
});

function log(n: number): string[] {
  const out: string[] = [];
  let prev;
  for (let i = 1; i <= n; i++) {
    prev = sealEntry(prev, rec(i));
    out.push(JSON.stringify(prev));
  }
  return out;
}

describe('audit chain', () => {
  it('entries are numbered and linked; an intact log verifies', () => {
    const lines = log(3);
    const e = lines.map((l) => JSON.parse(l));
    expect(e.map((x) => x.seq)).toEqual([1, 2, 3]);
    expect(e[0].prev).toBe('');
    expect(e[1].prev).toBe(e[0].hash);
    expect(verifyChain(lines)).toEqual({ ok: true, entries: 3 });
    expect(verifyChain([])).toEqual({ ok: true, entries: 0 });
  });

  it('a changed entry is detected at its line', () => {
    const lines = log(3);
    lines[1] = lines[1].replace('"outcome":"success"', '"outcome":"error"');
    expect(verifyChain(lines)).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('changed after it was written') });
  });

  it('a removed or reordered entry is detected', () => {
    const lines = log(3);
    expect(verifyChain([lines[0], lines[2]])).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('removed, inserted or reordered') });
    expect(verifyChain([lines[1], lines[0], lines[2]])).toMatchObject({ ok: false, line: 1 });
  });

  it('a re-sealed forgery still breaks the link to the next entry', () => {
    const lines = log(3);
    const forged = sealEntry(undefined, rec(1, { outcome: 'refused' }));
    expect(verifyChain([JSON.stringify(forged), lines[1], lines[2]])).toMatchObject({ ok: false, line: 2 });
  });
});
