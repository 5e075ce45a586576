/** FailureHandling in an agent file: the compiler keeps it in the compiled pattern, and refuses an
 * unknown failure type or action at its line with the closest name. */
import * as fs from 'fs';
import * as path from 'path';
import YAML from 'yaml';
import { compileBundle } from '../../src/compiler';
import { BODY, baseAgent, tempRegistry } from '../compiler/helpers';

const reg = tempRegistry();
let n = 0;
function compile(failureHandling: unknown) {
  const id = `fh-host-${++n}`;
  const data = {
    ...baseAgent(id),
    local_agents: [{ alias: 'Developer', agent_ref: 'coder' }, { alias: 'Tester', agent_ref: 'reviewer' }],
    orchestration: {
      pattern: {
        type: 'strategies',
        Selection: { Type: 'keyword', DefaultAgent: 'Developer', Routes: [{ Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', SourceAgents: ['Developer'] }, { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] }] },
        FailureHandling: failureHandling,
      },
    },
  };
  fs.writeFileSync(path.join(reg, 'agents', `${id}.agent.md`), `---\n${YAML.stringify(data)}---\n${BODY}`);
  return { id, ...compileBundle(reg, id) };
}

test('a valid FailureHandling compiles clean and travels in the compiled pattern', () => {
  const r = compile({ NoProgress: 'escalate', ConflictingEvidence: 'audit' });
  expect(r.diagnostics.filter((d) => d.severity === 'error' || d.code.startsWith('AGL02'))).toEqual([]);
  const pattern = r.bundle!.agents[r.id].orchestration!.pattern as unknown as { config: Record<string, unknown> };
  expect(pattern.config.FailureHandling).toEqual({ NoProgress: 'escalate', ConflictingEvidence: 'audit' });
});

test('an unknown failure type or action is AGF073 at its line, with the closest name', () => {
  const r = compile({ NoProgres: 'escalate', MissingSignal: 'retry' });
  expect(r.bundle).toBeUndefined();
  const found = r.diagnostics.filter((d) => d.code === 'AGF073').map((d) => d.message);
  expect(found).toEqual([
    expect.stringMatching(/unknown failure type `NoProgres`; did you mean `NoProgress`\?/),
    expect.stringMatching(/unknown failure handling `retry` \(actions: correction, audit, escalate, stop\)/),
  ]);
  expect(r.diagnostics.filter((d) => d.code === 'AGF073').every((d) => (d as { line?: number }).line !== undefined && (d as { line?: number }).line! > 1)).toBe(true);
});
