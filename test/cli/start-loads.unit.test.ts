/**
 * Commands that do not wait on a run load only what they use (the start-up budget of `loom`): help,
 * the version and the completion script load no command's dependencies; validating or compiling a
 * clean registry loads neither Ajv (the validators are generated at build time) nor the positioned
 * YAML parser, nor any client, telemetry, MCP or AWS module; a registry with a diagnostic does load
 * the YAML parser (for its position), which shows the check sees what a command loads.
 */
import * as fs from 'fs';
import { Definitions, agentDefinitions, definition, scripted } from '../helpers/definitions';
import { loomLoads } from './loaded';

jest.setTimeout(120_000);

let clean: Definitions;
let warned: Definitions;

beforeAll(() => {
  // A role, so the only diagnostic of `warned` is the one it is written to have.
  const role = definition('role', { role_id: 'quick-role', version: '1.0.0', status: 'active', description: 'The starter role.', tools: [] });
  const agent = { agent_id: 'quick-start', model: scripted({ turns: [{ content: 'hi' }] }), others: [role], front: { role: 'quick-role' } };
  clean = new Definitions().addAll(agentDefinitions(agent));
  warned = new Definitions().addAll(agentDefinitions({ ...agent, front: { ...agent.front, knowledge: { retrieval: { trigger: 'always' } } } }));
});
afterAll(() => {
  for (const d of [clean, warned]) fs.rmSync(d.dir, { recursive: true, force: true });
});

test.each([['--help'], ['--version'], ['completion', 'bash']])('loom %s loads no heavy module', async (...args) => {
  const r = await loomLoads(args);
  expect(r.code).toBe(0);
  expect(r.out.length).toBeGreaterThan(0);
  expect(r.heavy).toEqual([]);
});

test('validating and compiling a clean registry load the compiler and nothing heavy', async () => {
  expect(clean.diagnostics('quick-start')).toEqual([]);
  const v = await loomLoads(['validate', '--registry', clean.dir]);
  expect(v.err).toContain('0 error(s), 0 warning(s)');
  expect(v.code).toBe(0);
  expect(v.heavy).toEqual(['the compiler']);
  const c = await loomLoads(['compile', 'quick-start', '--registry', clean.dir]);
  expect(c.code).toBe(0);
  expect(JSON.parse(c.out).root).toBe('quick-start');
  expect(c.heavy).toEqual(['the compiler']);
});

test('a diagnostic loads the positioned YAML parser for its line and column, and still not Ajv', async () => {
  const v = await loomLoads(['validate', '--registry', warned.dir]);
  expect(v.out).toMatch(/quick-start\.agent\.md:\d+:\d+: warning AGL030/);
  expect(v.heavy).toEqual(['the compiler', 'yaml (the positioned YAML parser)']);
});
