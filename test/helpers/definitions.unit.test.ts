/** The test builder over the compiler: definitions written as a user writes them, compiled by `compileBundle`. */
import * as fs from 'fs';
import * as path from 'path';
import { agentDefinition, builtin, compileAgent, Definitions, scripted } from './definitions';

test('an agent with a scripted model and a builtin tool compiles into the bundle a run takes', () => {
  const { bundle, agent, defs } = compileAgent({
    agent_id: 'adder',
    model: scripted({ turns: [{ content: 'done' }] }),
    tools: [builtin('arithmetic')],
    toolRefs: { arithmetic: { approval_required: true } },
  });
  try {
    expect(bundle.root).toBe('adder');
    expect(Object.keys(bundle.agents)).toEqual(['adder']);
    expect(bundle.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(agent.runtime.model).toMatchObject({ model_id: 'scripted-test', provider: 'scripted', scripted: { turns: [{ content: 'done' }] } });
    expect(agent.tools.refs.map((t) => [t.tool_id, t.kind, t.approval_required])).toEqual([['arithmetic', 'builtin', true]]);
    expect(agent.execution_policy).toEqual({ id: 'agf.react', config: {} });
    // The files are the ones a user writes: Markdown with YAML front matter.
    expect(fs.readFileSync(path.join(defs.dir, 'agents', 'adder.agent.md'), 'utf8')).toMatch(/^---\nspec_version: "?1\.0"?\nagent_id: adder\n[\s\S]*\n---\n\n# Purpose\n/);
  } finally {
    defs.remove();
  }
});

test('a definition the compiler refuses fails with its diagnostics', () => {
  const defs = new Definitions();
  try {
    defs.add(agentDefinition({ agent_id: 'lonely', model: scripted({}, 'missing-model') }));
    expect(() => defs.compile('lonely')).toThrow(/definitions of lonely do not compile[\s\S]*agents\/lonely\.agent\.md:\d+:\d+: error [A-Z]+\d+: .*missing-model/);
    expect(defs.diagnostics('lonely').some((d) => d.severity === 'error')).toBe(true);
  } finally {
    defs.remove();
  }
});
