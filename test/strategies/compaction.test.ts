/**
 * fuseraft's lossless compaction on a real Temporal dev server: the Planner writes the brief and
 * app.js and runs the verify command in the first turn; a Chatter then talks for 26 turns, so the
 * shared window (24 entries) compacts the Planner's turn away. The Tester knows the verify command
 * only from the context rebuilt from the evidence log (the Planner's real shell run), runs it, and
 * the Verify → Done transition's contract (FilesWritten from the brief, CommandSucceeded) passes.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CompiledTool, ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { agent, answers } from '../orchestration/builders';
import { recordingHarness } from './dev-server';
import { scriptedTeam, strategiesTeam } from './team';

const dev = recordingHarness('strat-compaction');
let tmp: string;
beforeAll(() => { tmp = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'strat-compaction-')); });

const baseTool = (tool_id: string, builtin: CompiledTool['builtin']): CompiledTool => ({
  tool_id, version: '1.0.0', status: 'active', description: tool_id, kind: 'builtin', input_schema: { type: 'object' },
  approval_required: false, sensitive_fields: [], side_effects: true, builtin,
});
const WRITE = baseTool('write_file', { name: 'write_file' });
const SHELL = baseTool('run_command', { name: 'shell', config: { allowed_commands: ['node -e *'], timeout_seconds: 30 } });

const say = (content: string): ScriptedReply => ({ content });
const write = (p: string, content: string): ScriptedReply => ({ tool_calls: [{ name: 'write_file', arguments: { path: p, content } }] });
const run = (command: string): ScriptedReply => ({ tool_calls: [{ name: 'run_command', arguments: { command } }] });

/** Model calls in order for the member turn whose input contains `when`; the first matching entry wins. */
function script(turns: { when: string; replies: ScriptedReply[] }[], otherwise: string): ScriptedModelConfig {
  return {
    rules: turns.flatMap((t) => t.replies.map((reply, i) => ({ when: { input_contains: t.when, turn: i }, reply }))),
    turns: [say(otherwise)],
  };
}

function team(root: string, config: Record<string, unknown>, members: Record<string, ScriptedModelConfig>) {
  const member = (name: string, model: ScriptedModelConfig) => ({ ...agent({ id: `cp-${name.toLowerCase()}`, model, max_turns: 8 }), tools: { tool_choice: 'auto' as const, refs: [WRITE, SHELL] } });
  return strategiesTeam(root, config, Object.fromEntries(Object.entries(members).map(([n, m]) => [n, member(n, m)])));
}

const VERIFY = `node -e "console.log('verified '+require('fs').readFileSync('app.js','utf8').length)"`;
const CHATS = 26;

test('after the window compacts the Planner away, the Tester satisfies the contract from the rebuilt evidence', async () => {
  const brief = JSON.stringify({ goal: 'greet', files_to_change: ['app.js'], acceptance_criteria: ['prints hello'], verify_command: VERIFY });
  const b = team('cp-sm', {
    Contracts: [{ Name: 'Verified', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }, { CommandSucceeded: { Source: 'brief.json', PatternField: 'verify_command' } }] }],
    Selection: {
      Type: 'statemachine',
      StateMachine: {
        Initial: 'Planning',
        States: {
          Planning: { Agent: 'Planner', Transitions: [{ To: 'Chat', Signal: 'HANDOFF TO CHAT' }] },
          Chat: { Agent: 'Chatter', Transitions: [{ To: 'Chat', Signal: 'MORE' }, { To: 'Verify', Signal: 'READY' }] },
          Verify: { Agent: 'Tester', Transitions: [{ To: 'Done', Signal: 'PASSED', Contract: 'Verified' }] },
          Done: { Agent: 'Tester', Terminal: true },
        },
      },
    },
    Termination: { Type: 'regex', Pattern: 'ALL GOOD', AgentNames: ['Tester'], MaxIterations: 40 },
  }, {
    Planner: script([{ when: '"your_turn": 1\n', replies: [write('brief.json', brief), write('app.js', 'console.log("hello")'), run(VERIFY), say(`Plan: verify with the command I ran.\nHANDOFF TO CHAT`)] }], 'planned'),
    Chatter: script([{ when: `"your_turn": ${CHATS}\n`, replies: [say('Enough talk.\nREADY')] }], 'Still discussing.\nMORE'),
    Tester: script([
      { when: '\nCurrent state: Done\n', replies: [say('ALL GOOD')] },
      // Only the rebuilt context names the Planner's command: the Planner's own turn is compacted away.
      { when: `- \`${VERIFY}\` by turn-1-Planner: exit 0`, replies: [run(VERIFY), say('Ran the verify command.\nPASSED')] },
    ], 'I do not know what to verify.'),
  });
  const workspace = fs.mkdtempSync(path.join(tmp, 'ws-'));
  const wf = await dev.start(b, 'greet the user', { options: { workspace } });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('ALL GOOD');
  const turns = await dev.turns(wf.workflowId);
  expect(turns).toHaveLength(1 + CHATS + 2);
  expect(turns[0]).toBe('turn-1-Planner');
  expect(turns.slice(-2)).toEqual([`turn-${CHATS + 2}-Tester`, `turn-${CHATS + 3}-Tester`]);
  const st = await wf.query(statusQuery);
  const reasons = (st.progress as { routes: { reason: string }[] }).routes.map((r) => r.reason);
  expect(reasons.some((r) => r.includes('signal "PASSED" from Verify'))).toBe(true);
});

test('other strategies keep the plain window: a long roundrobin run compacts without a rebuilt block', async () => {
  const echo: ScriptedModelConfig = { turns: [{ content: '{{message}}' }] };
  const config = { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 27 } };
  const wf = await dev.start(scriptedTeam('cp-rr', config, { Echo: echo, Other: answers('still here') }), 'talk');
  const out = String(((await wf.result()) as AgentRunResult).output);
  // The 27th turn (Echo's) read 26 earlier entries through the window (its echoes are long, so the character budget bites first).
  expect(out).toMatch(/^# Task\ntalk\n\n# Conversation so far \(\d+ earlier entries omitted\)/);
  expect(out).not.toContain('# Evidence kept across compaction');
});

// Last in the file: every run above replays deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(2);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
}, 120_000);
