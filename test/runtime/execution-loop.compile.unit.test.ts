/** `runtime.execution_loop` in an agent file: compiled into the bundle, a bad value refused with file, line and the values to write. */
import * as fs from 'fs';
import * as path from 'path';
import YAML from 'yaml';
import { compileBundle, formatDiagnostic } from '../../src/compiler';
import { baseAgent, BODY, tempRegistry } from '../compiler/helpers';

function compileWith(runtime: Record<string, unknown>, over: Record<string, unknown> = {}) {
  const reg = tempRegistry();
  const data = { ...baseAgent('loop-agent'), ...over };
  data.runtime = { ...(data.runtime as object), ...runtime };
  const file = path.join(reg, 'agents', 'loop-agent.agent.md');
  fs.writeFileSync(file, `---\n${YAML.stringify(data)}---\n${BODY}`);
  return compileBundle(reg, 'loop-agent');
}

test('execution_loop: dependencies reaches the compiled runtime; absent stays absent (the turn loop)', () => {
  const on = compileWith({ execution_loop: 'dependencies' });
  expect(on.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(on.bundle!.agents['loop-agent'].runtime.execution_loop).toBe('dependencies');
  const off = compileWith({});
  expect(off.bundle!.agents['loop-agent'].runtime).not.toHaveProperty('execution_loop');
});

test('an unknown execution_loop value is a hard error naming the field, its line and the accepted values', () => {
  const r = compileWith({ execution_loop: 'parallel' });
  expect(r.bundle).toBeUndefined();
  const errs = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errs).toHaveLength(1);
  const text = formatDiagnostic(errs[0]);
  expect(text).toMatch(/loop-agent\.agent\.md:\d+/);
  expect(text).toMatch(/execution_loop/);
  expect(text).toMatch(/turn.*dependencies|dependencies.*turn/);
});

test('on an agent that orchestrates members (not the react loop) the field has no effect: warning AGL030 naming it', () => {
  const r = compileWith({ execution_loop: 'dependencies' }, { execution_policy: { id: 'x-acme.custom-loop' } });
  const w = r.diagnostics.filter((d) => d.code === 'AGL030').map(formatDiagnostic);
  expect(w.join('\n')).toMatch(/runtime\.execution_loop.*agf\.react runs only/);
  expect(compileWith({ execution_loop: 'dependencies' }).diagnostics.filter((d) => d.code === 'AGL030').map(formatDiagnostic).join('\n')).not.toMatch(/execution_loop/);
});
