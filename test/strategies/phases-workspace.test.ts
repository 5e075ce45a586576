/**
 * Phase-strategy members share the run's workspace; scatter-gather participants each work in an
 * isolated snapshot of it (decision 268), on a real Temporal dev server with the real file tools.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CompiledTool, ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { agent } from '../orchestration/builders';
import { recordingHarness } from './dev-server';
import { strategiesTeam } from './team';

const dev = recordingHarness('phases-ws');
let tmp: string;
beforeAll(() => { tmp = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'phases-ws-')); });

const tool = (name: string): CompiledTool => ({
  tool_id: name, version: '1.0.0', status: 'active', description: name, kind: 'builtin', input_schema: { type: 'object' },
  approval_required: false, sensitive_fields: [], side_effects: name === 'write_file', builtin: { name },
});
const say = (content: string): ScriptedReply => ({ content });
const read = (p: string): ScriptedReply => ({ tool_calls: [{ name: 'read_file', arguments: { path: p } }] });
const write = (p: string, content: string): ScriptedReply => ({ tool_calls: [{ name: 'write_file', arguments: { path: p, content } }] });

function team(root: string, config: Record<string, unknown>, members: Record<string, ScriptedModelConfig>) {
  return strategiesTeam(root, config, Object.fromEntries(Object.entries(members).map(([n, model]) => {
    const a = agent({ id: `ws-${n.toLowerCase()}`, model, max_turns: 6 });
    return [n, { ...a, tools: { tool_choice: 'auto' as const, refs: [tool('read_file'), tool('write_file')] } }];
  })));
}

function workspace(name: string): string {
  const ws = path.join(tmp, name);
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'brief.txt'), 'the brief');
  return ws;
}

test('scatter-gather: each participant gets its own copy of the workspace (sees the brief, not another participant\'s file); the Synthesizer works in the shared one', async () => {
  const ws = workspace('sg');
  const b = team('ws-sg', { Selection: { Type: 'scattergather', ScatterGather: { Participants: ['First', 'Second'], Synthesizer: 'Lead', MaxConcurrency: 1 } } }, {
    First: { turns: [write('first.txt', 'mine'), read('brief.txt'), say('first read: {{last_tool_result}}')] },
    Second: { turns: [read('first.txt'), say('second read: {{last_tool_result}}')] },
    Lead: { turns: [read('first.txt'), say('lead read: {{last_tool_result}} | {{input}}')] },
  });
  const wf = await dev.start(b, 'review it', { options: { workspace: ws } });
  const out = String(((await wf.result()) as AgentRunResult).output);
  const [lead, gathered] = out.split(' | ');
  // Neither the second participant (which ran after the first: MaxConcurrency 1) nor the Synthesizer sees first.txt.
  expect(lead).toMatch(/^lead read: error: tool read_file failed: .*first\.txt/);
  expect(gathered).toContain('[Participant: First]\nfirst read: the brief');
  expect(gathered).toMatch(/\[Participant: Second\]\nsecond read: error: tool read_file failed: .*first\.txt/);
  expect(gathered).not.toContain('mine');
  // First's file is in its snapshot only.
  expect(fs.existsSync(path.join(ws, 'first.txt'))).toBe(false);
  expect(fs.readFileSync(path.join(`${ws}.snapshots`, 'scatter-1-First', 'first.txt'), 'utf8')).toBe('mine');
  expect(fs.readFileSync(path.join(`${ws}.snapshots`, 'scatter-2-Second', 'brief.txt'), 'utf8')).toBe('the brief');
});

test('adversarial: the Critic reads the file the Generator wrote in the shared workspace', async () => {
  const ws = workspace('adv');
  const b = team('ws-adv', { Selection: { Type: 'adversarial', Adversarial: { Rounds: 1, Stages: [{ Generator: 'Writer', Critic: 'Critic' }] } } }, {
    Writer: { turns: [write('draft.md', 'draft v1 from the brief'), say('wrote draft.md')] },
    Critic: { rules: [{ when: { last_message_contains: 'draft v1 from the brief' }, reply: say('APPROVED') }], turns: [read('draft.md'), say('could not read it')] },
  });
  const wf = await dev.start(b, 'write it', { options: { workspace: ws } });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('wrote draft.md');
  // Rounds 1: a critic that could not read the draft would not approve (an exhaustion warning).
  expect(res.warnings ?? []).toEqual([]);
  expect(fs.readFileSync(path.join(ws, 'draft.md'), 'utf8')).toBe('draft v1 from the brief');
});

test('every run of this file replays without nondeterminism', async () => {
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
  expect(outcomes).toHaveLength(dev.started.length);
});
