/**
 * Tools and vendor policies written in code, checked by the compiler: a `kind: code` tool file names
 * a defineTool tool and an agent may name an `x-<vendor>` policy. A compile that knows what the
 * worker registers (compileBundle's `code`, AgentloomPlugin.compile) refuses an unknown name, naming
 * the registered ones (AGF192, AGF193); a compile that does not (plain `loom validate`) says the
 * check is deferred (AGL060, AGL061). At run time the worker's executor fails an unregistered code
 * tool with a non-retryable CodeToolNotRegistered naming it.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod/v4';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import { defineTool, executorWithTools, toolFile } from '../../src/plugin/define-tool';
import { AgentloomPlugin } from '../../src/plugin/agentloom-plugin';
import type { ExternalToolContext } from '../../src/activities/react-tools';
import type { CompiledTool } from '../../src/compiled/types';
import { agentDefinitions, Definitions, scripted, type Definition } from '../helpers/definitions';
import { parseFrontMatter } from './front-matter';

const weather = defineTool({
  name: 'weather_now',
  description: 'The weather in a city now.',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

/** The tool file toolFile writes, as a Definition. */
function codeTool(text: string): Definition {
  return { kind: 'tool', front: parseFrontMatter(text) };
}

let defs: Definitions;
beforeAll(() => {
  defs = new Definitions();
  defs.addAll(agentDefinitions({ agent_id: 'forecaster', model: scripted({ turns: [{ content: 'ok' }] }), tools: [codeTool(toolFile(weather))] }));
  defs.addAll(agentDefinitions({ agent_id: 'chain', model: scripted({ turns: [{ content: 'ok' }] }, 'chain-model'), front: { execution_policy: { id: 'x-acme.fallback', config: {} } } }));
});
afterAll(() => defs.remove());

const codes = (ds: { code: string }[]): string[] => ds.map((d) => d.code);

test('toolFile declares a kind: code tool, compiled with its name and the code\'s schema', () => {
  const front = parseFrontMatter(toolFile(weather));
  expect(front).toMatchObject({ tool_id: 'weather_now', kind: 'code', code: { name: 'weather_now' } });
  const { bundle } = compileBundle(defs.dir, 'forecaster', { code: { tools: ['weather_now'] } });
  const tool = bundle!.agents.forecaster.tools.refs[0];
  expect({ kind: tool.kind, code: tool.code, schema: tool.input_schema }).toEqual({ kind: 'code', code: { name: 'weather_now' }, schema: weather.inputSchema });
});

test('where the worker\'s tools are known, an unregistered code tool is AGF192 naming it and the registered ones; a registered one is clean', () => {
  const refused = compileBundle(defs.dir, 'forecaster', { code: { tools: ['lookup_order', 'send_mail'] } });
  expect(refused.bundle).toBeUndefined();
  const err = refused.diagnostics.find((d) => d.code === 'AGF192');
  expect(err?.severity).toBe('error');
  expect(err?.message).toMatch(/runs `weather_now`, which the worker does not register.*registered: lookup_order, send_mail/);
  expect(err?.file).toBe('agents/forecaster.agent.md');
  const ok = compileBundle(defs.dir, 'forecaster', { code: { tools: ['weather_now'] } });
  expect(codes(ok.diagnostics)).not.toContain('AGF192');
  expect(codes(ok.diagnostics)).not.toContain('AGL060');
  expect(ok.bundle).toBeDefined();
});

test('where they are not known (plain validate), a warning defers the check and the bundle still compiles', () => {
  const plain = compileBundle(defs.dir, 'forecaster');
  const warn = plain.diagnostics.find((d) => d.code === 'AGL060');
  expect(warn?.severity).toBe('warning');
  expect(warn?.message).toMatch(/`weather_now`, a tool written in code.*checks the name when it runs it/);
  expect(plain.bundle).toBeDefined();
});

test('vendor policies: AGF193 where the worker\'s policies are known and it lacks the id, AGL061 where they are not known', () => {
  const refused = compileBundle(defs.dir, 'chain', { code: { policies: ['x-agentloom.fallback'] } });
  expect(refused.bundle).toBeUndefined();
  expect(refused.diagnostics.find((d) => d.code === 'AGF193')?.message).toMatch(/`x-acme\.fallback` is not registered by the worker.*registered: x-agentloom\.fallback/);
  const ok = compileBundle(defs.dir, 'chain', { code: { policies: ['x-acme.fallback'] } });
  expect(codes(ok.diagnostics).filter((c) => c === 'AGF193' || c === 'AGL061')).toEqual([]);
  expect(ok.bundle!.agents.chain.execution_policy.id).toBe('x-acme.fallback');
  const plain = compileBundle(defs.dir, 'chain');
  expect(plain.diagnostics.find((d) => d.code === 'AGL061')?.severity).toBe('warning');
  expect(plain.bundle).toBeDefined();
});

test('AgentloomPlugin.compile knows the plugin\'s tools and policies', () => {
  const policyFile = path.join(__dirname, '..', '..', 'examples', 'orchestrators', 'vendor', 'fallback-policy.ts');
  const plugin = new AgentloomPlugin({ tools: [weather], policies: { 'x-acme.fallback': policyFile }, dataConverter: null });
  expect(plugin.code).toEqual({ tools: ['weather_now'], policies: ['x-acme.fallback'] });
  expect(plugin.compile(defs.dir, 'forecaster').bundle).toBeDefined();
  expect(plugin.compile(defs.dir, 'chain').bundle).toBeDefined();
  const bare = new AgentloomPlugin({ dataConverter: null });
  expect(codes(bare.compile(defs.dir, 'forecaster').diagnostics)).toContain('AGF192');
  expect(codes(bare.compile(defs.dir, 'chain').diagnostics)).toContain('AGF193');
  // Bad policy options are refused when the plugin is made.
  expect(() => new AgentloomPlugin({ policies: { 'acme.fallback': policyFile } })).toThrow(/not a vendor policy id; write x-<vendor>\.<name>/);
  expect(() => new AgentloomPlugin({ policies: { 'x-acme.fallback': './fallback-policy' } })).toThrow(/absolute path, e\.g\. require\.resolve/);
});

test('at run time a code tool the worker does not register fails, not retried, naming it and the registered ones', async () => {
  const fallback = jest.fn(async () => 'fallback ran');
  const exec = executorWithTools([weather], fallback);
  const tool = (name: string): CompiledTool => ({ tool_id: 'w', version: '1.0.0', status: 'active', description: 'w', kind: 'code', code: { name }, input_schema: { type: 'object' }, approval_required: false, sensitive_fields: [], side_effects: false });
  const ctx = (name: string): ExternalToolContext => ({ tool: tool(name), args: { city: 'Oslo' } } as unknown as ExternalToolContext);
  await expect(exec(ctx('weather_now'))).resolves.toBe('sunny in Oslo');
  const err = await exec(ctx('weather_later')).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect(err).toMatchObject({ nonRetryable: true, type: 'CodeToolNotRegistered' });
  expect((err as Error).message).toMatch(/runs 'weather_later', a tool written in code that this worker does not register \(registered: weather_now\)/);
  // A code tool never falls through to the builtin registry.
  expect(fallback).not.toHaveBeenCalled();
});
