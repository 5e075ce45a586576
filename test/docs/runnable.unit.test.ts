/**
 * The runnable-docs markers (test/docs/runnable.ts) without a Temporal server: blocks are found
 * with their markers and lines, unmarked blocks are left alone, and a page whose example is broken
 * (an agent naming a model no file defines) fails with the page line and the compiler's diagnostic,
 * while the same page with the model file succeeds. Only `loom validate` runs here: it needs no server.
 */
import { describeFailure, runnableBlocks, runPage } from './runnable';
import { userEnv } from '../cli/harness';

jest.setTimeout(60000);

const fence = '```';
const agent = [
  '---', "spec_version: '1.0'", 'agent_id: echo-bot', 'version: 1.0.0', 'status: active',
  'meta: { name: Echo, description: Repeats the text it is given back to the user, owner: docs }',
  'role: echo-role', 'runtime: { model: echo-model, max_turns: 2 }',
  'interface:', '  input: { schema: { type: object, properties: { text: { type: string } }, required: [text] }, examples: [{ text: hi }] }',
  '  output: { schema: { type: object, properties: { text: { type: string } }, required: [text] } }',
  'tools: { tool_choice: auto, refs: [] }', 'artifacts: { enabled: false }', '---',
  '# Purpose', 'Echo.', '# System behavior', 'Answer with the JSON object of the output schema.', '# Rules', '- Be brief.', '',
].join('\n');
const model = ['---', 'model_id: echo-model', 'version: 1.0.0', 'status: active', 'provider: scripted', 'scripted:', '  turns:', "    - content: '{\"text\": \"{{input.text}}\"}'", '---', '', 'Scripted.', ''].join('\n');
const role = ['---', 'role_id: echo-role', 'version: 1.0.0', 'status: active', 'description: Uses no tool.', 'tools: []', '---', ''].join('\n');

function page(withModel: boolean): string {
  return [
    '# A page', '',
    `${fence}markdown file=agents/echo-bot.agent.md`, agent + fence, '',
    ...(withModel ? [`${fence}markdown file=models/echo-model.model.md`, model + fence, ''] : []),
    `${fence}markdown file=roles/echo-role.iam.md`, role + fence, '',
    `${fence}bash`, 'echo not run: no marker', fence, '',
    `${fence}bash run`, 'loom validate --strict', fence,
    `${fence}text output`, fence, '',
  ].join('\n');
}

test('blocks are found by their markers, in order, with their lines', () => {
  const blocks = runnableBlocks(page(true));
  expect(blocks.map((b) => (b.kind === 'file' ? `file ${b.path}` : `run ${b.text.trim()}`))).toEqual([
    'file agents/echo-bot.agent.md', 'file models/echo-model.model.md', 'file roles/echo-role.iam.md', 'run loom validate --strict',
  ]);
  expect(blocks[0].line).toBe(3);
  expect(blocks[3]).toMatchObject({ kind: 'run', expect: '\n' });
});

test('a file block outside the page folder and an output block without a run block are refused', () => {
  expect(() => runnableBlocks(`${fence}yaml file=../x.md\nx\n${fence}\n`)).toThrow(/inside the page's folder/);
  expect(() => runnableBlocks(`${fence}text output\nx\n${fence}\n`)).toThrow(/must follow a run block/);
});

test('a broken example fails with its line and the diagnostic; the fixed page passes', async () => {
  const env = userEnv({});
  const broken = await runPage(page(false), env);
  expect(broken).toBeDefined();
  const msg = describeFailure('docs/x.md', broken!);
  expect(msg).toMatch(/^docs\/x\.md:\d+: the runnable block failed \(exit code 1\)/);
  expect(msg).toMatch(/AGF014/);
  expect(await runPage(page(true), env)).toBeUndefined();
});

test('an expected output line missing from stdout fails the block', async () => {
  const md = `${fence}bash run\necho one\n${fence}\n${fence}text output\none\ntwo\n${fence}\n`;
  const f = await runPage(md, userEnv({}));
  expect(f?.why).toBe('stdout lacks: two');
});
