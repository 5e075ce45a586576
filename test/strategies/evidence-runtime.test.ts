/**
 * Validators, contracts and HandoffContext over real evidence, on a real Temporal dev server: the
 * scripted team really writes files (write_file) and runs real commands (the shell builtin) in the
 * run's one workspace; the runtime reads what the tools recorded (changes.json, shell runs with exit
 * codes, artifact files), never the model's claims. Keyword validators gate a route on a command
 * that fails then passes (and on a refused command that never ran); a state-machine contract fails,
 * its RecoveryAgent fixes it once, the transition fires and its HandoffContext reaches the next
 * agent's model input; RequireAllFilesWritten passes only once every brief file was really written.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { CompiledTool, ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { agent, answers } from '../orchestration/builders';
import { failureOf } from '../orchestration/harness';
import { recordingHarness } from './dev-server';
import { reviewLoopConfig, strategiesTeam } from './team';
import { withCommandSources } from '../../src/strategies/evidence';
import type { ContractConfig } from '../../src/strategies/types';
import { CONTRACTS_YAML, load } from './seed-examples';

const dev = recordingHarness('strat-evidence');
let tmp: string;
beforeAll(() => { tmp = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'strat-evidence-')); });

const baseTool = (tool_id: string, builtin: CompiledTool['builtin']): CompiledTool => ({
  tool_id, version: '1.0.0', status: 'active', description: tool_id, kind: 'builtin', input_schema: { type: 'object' },
  approval_required: false, sensitive_fields: [], side_effects: true, builtin,
});
const WRITE = baseTool('write_file', { name: 'write_file' });
/** The shell tool the team may use: node one-liners only. */
const SHELL = baseTool('run_command', { name: 'shell', config: { allowed_commands: ['node -e *', 'node *.test.js'], timeout_seconds: 30 } });

const say = (content: string): ScriptedReply => ({ content });
const write = (p: string, content: string): ScriptedReply => ({ tool_calls: [{ name: 'write_file', arguments: { path: p, content } }] });
const run = (command: string): ScriptedReply => ({ tool_calls: [{ name: 'run_command', arguments: { command } }] });

/** A reply given only when the latest message (e.g. the previous tool result) contains `after`. */
type Step = ScriptedReply | { reply: ScriptedReply; after: string };
/**
 * A member whose N-th turn (its `your_turn`, or the input text `when`) makes these model replies in
 * order; the first matching turn wins, so list turns whose `when` text stays in later inputs last.
 */
function script(turns: { turn: number; when?: string; replies: Step[] }[], otherwise = 'nothing to do'): ScriptedModelConfig {
  return {
    rules: turns.flatMap((t) => t.replies.map((step, i) => {
      const { reply, after } = 'after' in step ? step : { reply: step, after: undefined };
      return { when: { input_contains: t.when ?? `"your_turn": ${t.turn}\n`, turn: i, ...(after ? { last_message_contains: after } : {}) }, reply };
    })),
    turns: [say(otherwise)],
  };
}

/** A team whose every member may write files and run the allowed commands. */
function team(root: string, config: Record<string, unknown>, members: Record<string, ScriptedModelConfig>) {
  const member = (name: string, model: ScriptedModelConfig) => {
    const a = agent({ id: `ev-${name.toLowerCase()}`, model, max_turns: 8 });
    return { ...a, tools: { tool_choice: 'auto' as const, refs: [WRITE, SHELL] } };
  };
  return strategiesTeam(root, config, Object.fromEntries(Object.entries(members).map(([n, m]) => [n, member(n, m)])));
}

/** Start in a fresh workspace of its own. */
async function start(b: ReturnType<typeof team>, input: string) {
  const workspace = fs.mkdtempSync(path.join(tmp, 'ws-'));
  return { wf: await dev.start(b, input, { options: { workspace } }), workspace };
}

const turns = (wfId: string) => dev.turns(wfId);

/** Exits 0 only once app.js holds "v2". */
const CHECK = `node -e "process.exit(require('fs').readFileSync('app.js', 'utf8').includes('v2') ? 0 : 1)"`;

describe('keyword validators over real evidence', () => {
  test('RequireShellPass blocks the route while the real command fails (a refused command never counts), passes once it exits 0', async () => {
    const b = team('ev-kw', {
      Selection: {
        Type: 'keyword', DefaultAgent: 'Developer',
        Routes: [
          { Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', Validators: ['RequireWriteFile', 'RequireShellPass'], RequiredCommandPattern: 'node -e', SourceAgents: ['Developer'] },
          { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] },
        ],
      },
    }, {
      Developer: script([
        // Turn 1: a command the tool does not allow (refused, never run), a write, the real check failing, then the claim.
        { turn: 1, replies: [run('curl http://example.com'), { reply: write('app.js', 'v1'), after: 'command `curl http://example.com` is not allowed by this tool; allowed patterns: "node -e *", "node *.test.js"' }, run(CHECK), say('All done, tests pass.\nHANDOFF TO TESTER')] },
        // Turn 2 answers only the validator's correction naming the failed command and its exit code.
        { turn: 2, when: `RequireShellPass: no shell command containing one of "node -e" exited 0 this turn (\`${CHECK}\` exited 1)`, replies: [write('app.js', 'v2'), run(CHECK), say('Fixed.\nHANDOFF TO TESTER')] },
      ]),
      Tester: answers('Checked.\nDONE'),
    });
    const { wf, workspace } = await start(b, 'make app.js v2');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Checked.\nDONE');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer', 'turn-3-Tester']);
    // The change log the runtime recorded from the real write_file calls, by turn.
    const log = JSON.parse(fs.readFileSync(path.join(workspace, 'changes.json'), 'utf8')) as { path: string; workflow_id: string }[];
    expect(log.map((e) => [e.path, e.workflow_id.slice(wf.workflowId.length + 1)])).toEqual([['app.js', 'turn-1-Developer'], ['app.js', 'turn-2-Developer']]);
    expect(fs.readFileSync(path.join(workspace, 'app.js'), 'utf8')).toBe('v2');
    const st = await wf.query(statusQuery);
    expect(st.warnings ?? []).toEqual([]);
  });

  test('RequireBrief, then RequireWriteFile refuses a claimed write and RequireAllFilesWritten waits for every brief file across turns', async () => {
    const brief = JSON.stringify({ goal: 'two files', files_to_change: ['a.js', 'b.js'], acceptance_criteria: ['both exist'] });
    const b = team('ev-write', {
      Selection: {
        Type: 'keyword', DefaultAgent: 'Planner',
        Routes: [
          { Keyword: 'HANDOFF TO DEVELOPER', Agent: 'Developer', Validator: 'RequireBrief', SourceAgents: ['Planner'] },
          { Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', Validators: ['RequireWriteFile', 'RequireAllFilesWritten'], SourceAgents: ['Developer'] },
          { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] },
        ],
      },
    }, {
      Planner: script([{ turn: 1, replies: [write('brief.json', brief), say('Planned.\nHANDOFF TO DEVELOPER')] }]),
      Developer: script([
        { turn: 3, when: 'RequireAllFilesWritten: not written yet: b.js', replies: [write('b.js', 'b'), say('Both written.\nHANDOFF TO TESTER')] },
        { turn: 2, when: 'RequireWriteFile: Developer did not call write_file this turn', replies: [write('a.js', 'a'), say('Written.\nHANDOFF TO TESTER')] },
        { turn: 1, replies: [say('I wrote a.js and b.js.\nHANDOFF TO TESTER')] },
      ]),
      Tester: answers('ok\nDONE'),
    });
    const { wf } = await start(b, 'write a.js and b.js');
    expect(((await wf.result()) as AgentRunResult).output).toBe('ok\nDONE');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Planner', 'turn-2-Developer', 'turn-3-Developer', 'turn-4-Developer', 'turn-5-Tester']);
  });

  test('a validator that never passes stops the run as stuck, naming the agent and what failed', async () => {
    const b = team('ev-stuck', {
      Selection: {
        Type: 'keyword', DefaultAgent: 'Developer',
        Routes: [{ Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', Validator: 'RequireShellPass', SourceAgents: ['Developer'] }, { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] }],
      },
    }, {
      Developer: { rules: [{ when: { turn: 0 }, reply: run('node -e "process.exit(2)"') }], turns: [say('tests pass\nHANDOFF TO TESTER')] },
      Tester: answers('DONE'),
    });
    const { wf } = await start(b, 'x');
    await expect(wf.result()).rejects.toThrow();
    expect(await failureOf(wf)).toMatch(/ValidatorStuck: Developer got stuck after 3 consecutive failed turns .*RequireShellPass: no shell command exited 0 this turn \(`node -e "process.exit\(2\)"` exited 2\)/);
  });
});

describe('state machine contracts, RecoveryAgent and HandoffContext', () => {
  test('RequireAllFilesWritten-style contract fails twice, the RecoveryAgent writes the missing file once, the transition fires and injects its HandoffContext', async () => {
    const brief = JSON.stringify({ goal: 'greet the user', files_to_change: ['app.js', 'app.test.js'], acceptance_criteria: ['prints hello'], verify_command: 'node app.test.js' });
    const b = team('ev-sm', {
      Contracts: [
        { Name: 'ImplementationComplete', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }, { CommandSucceeded: { PatternField: 'verify_command' } }] },
      ],
      Selection: {
        Type: 'statemachine',
        StateMachine: {
          Initial: 'Planning',
          States: {
            Planning: { Agent: 'Planner', Transitions: [{ To: 'Implementation', Signal: 'HANDOFF TO DEVELOPER', HandoffContext: [{ Source: 'brief_field:goal', Label: 'Goal' }] }] },
            Implementation: {
              Agent: 'Developer',
              Transitions: [{
                To: 'Testing', Signal: 'HANDOFF TO TESTER', Contract: 'ImplementationComplete', RecoveryAgent: 'Fixer',
                HandoffContext: [{ Source: 'changes_recent:2', Label: 'Recent changes' }, { Source: 'file:app.js', MaxChars: 40, Label: 'The code' }, { Source: 'session_context' }],
              }],
            },
            Testing: { Agent: 'Tester', Terminal: true },
          },
        },
      },
      Termination: { Type: 'regex', Pattern: 'VERIFIED', AgentNames: ['Tester'], MaxIterations: 12 },
    }, {
      Planner: script([{ turn: 1, replies: [write('brief.json', brief), say('Brief written.\nHANDOFF TO DEVELOPER')] }]),
      Developer: script([
        { turn: 2, replies: [say('Really done.\nHANDOFF TO TESTER')] },
        // After the recovery turn: run the verify command for real, leave a handoff summary, hand off.
        { turn: 3, replies: [run('node app.test.js'), write('session_context.md', 'app.js prints hello; app.test.js checks it'), say('Verified locally.\nHANDOFF TO TESTER')] },
        // First turn (the rules above do not match it): sees the Goal the Planner's transition injected; writes one of the two files and claims done.
        { turn: 1, when: '## Goal\ngreet the user', replies: [write('app.js', 'console.log("hello")'), say('Implemented.\nHANDOFF TO TESTER')] },
      ]),
      Fixer: script([{ turn: 1, when: 'contract ImplementationComplete: FilesWritten: not written yet: app.test.js', replies: [write('app.test.js', "require('./app.js');"), say('Wrote the missing test file.')] }]),
      // The Tester verifies only when the handoff block is the latest history entry of its input.
      Tester: script([{ turn: 1, when: '## Recent changes\n- app.test.js (overwrite by turn-4-Fixer)\n- session_context.md (overwrite by turn-5-Developer)\n\n## The code\nconsole.log("hello")\n\n## session_context\napp.js prints hello; app.test.js checks it', replies: [say('Saw the handoff context.\nVERIFIED')] }], 'no handoff context'),
    });
    const { wf, workspace } = await start(b, 'greet');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Saw the handoff context.\nVERIFIED');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Planner', 'turn-2-Developer', 'turn-3-Developer', 'turn-4-Fixer', 'turn-5-Developer', 'turn-6-Tester']);
    const st = await wf.query(statusQuery);
    const reasons = (st.progress as { routes: { reason: string }[] }).routes.map((r) => r.reason);
    expect(reasons).toContain('RecoveryAgent for Implementation → Testing after 2 contract failures');
    expect(reasons.filter((r) => r.startsWith('RecoveryAgent'))).toHaveLength(1);
    expect(fs.existsSync(path.join(workspace, 'app.test.js'))).toBe(true);
  });
});

describe('the seed\'s ImplementationComplete contract pasted unchanged', () => {
  test('as compiled (CommandSucceeded reads the brief its FilesWritten names), the Developer\'s first real handoff fires the transition', async () => {
    const brief = JSON.stringify({ goal: 'greet', files_to_change: ['app.js'], acceptance_criteria: ['prints hello'], verify_command: 'node app.test.js' });
    const seed = load(CONTRACTS_YAML).Orchestration.Contracts as ContractConfig[];
    const b = team('ev-seed-contract', {
      // What the compiler stores for the seed's block (test/compiler/seeds002.test.ts checks that it does).
      Contracts: withCommandSources(seed),
      Selection: {
        Type: 'statemachine',
        StateMachine: {
          Initial: 'Implementation',
          States: {
            Implementation: { Agent: 'Developer', Transitions: [{ To: 'Testing', Signal: 'HANDOFF TO TESTER', Contract: 'ImplementationComplete' }] },
            Testing: { Agent: 'Tester', Terminal: true },
          },
        },
      },
      Termination: { Type: 'regex', Pattern: 'VERIFIED', AgentNames: ['Tester'], MaxIterations: 6 },
    }, {
      Developer: script([{ turn: 1, replies: [write('.fuseraft/artifacts/brief.json', brief), write('app.js', 'console.log("hello")'), write('app.test.js', "require('./app.js');"), run('node app.test.js'), say('Done.\nHANDOFF TO TESTER')] }]),
      Tester: answers('VERIFIED'),
    });
    const { wf } = await start(b, 'greet');
    expect(((await wf.result()) as AgentRunResult).output).toBe('VERIFIED');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Tester']);
  });
});

describe('state machine MaxRevisits escalation over the real review artifact', () => {
  test('past MaxRevisits the reviewer is re-invoked with ReviewArtifactPath quoted as it was written, not the back-edge', async () => {
    const b = team('ev-revisits', reviewLoopConfig({ MaxRevisits: 1, ReviewArtifactPath: 'review.md' }), {
      Developer: answers('Code.\nHANDOFF TO REVIEWER'),
      Reviewer: script([
        { turn: 3, when: 'The outstanding objections, from review.md:\n- naming is off\n- still no tests', replies: [say('Naming is cosmetic; tests are tracked separately.\nAPPROVED')] },
        { turn: 1, replies: [write('review.md', '- naming is off\n'), say('REVISION REQUIRED')] },
        { turn: 2, replies: [write('review.md', '- naming is off\n- still no tests\n'), say('REVISION REQUIRED')] },
      ]),
    });
    const { wf } = await start(b, 'build it');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Naming is cosmetic; tests are tracked separately.\nAPPROVED');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Reviewer', 'turn-3-Developer', 'turn-4-Reviewer', 'turn-5-Reviewer']);
  });
});

describe('keyword graph validators over real evidence', () => {
  test('an edge\'s RequireShellPass blocks while the real command fails and fires once it exits 0; a Terminal node ends only when its Validators pass', async () => {
    const report = JSON.stringify({ tests: [{ name: 'app is v2', status: 'pass' }], summary: { passed: 1, failed: 0, skipped: 0 } });
    const b = team('ev-graph', {
      Selection: {
        Type: 'graph',
        Graph: {
          EntryNode: 'developer',
          Nodes: [{ Id: 'developer', Agent: 'Developer' }, { Id: 'tested', Agent: 'Tester', Terminal: true, Validators: ['TestReportValid'] }],
          Edges: [{ From: 'developer', To: 'tested', Keyword: 'HANDOFF TO TESTER', Validators: ['RequireWriteFile', 'RequireShellPass'], RequiredCommandPattern: 'node -e' }],
        },
      },
    }, {
      Developer: script([
        { turn: 1, replies: [write('app.js', 'v1'), run(CHECK), say('Done.\nHANDOFF TO TESTER')] },
        // Only the edge's correction, naming the real failed run, gets the fix.
        { turn: 2, when: `Edge "HANDOFF TO TESTER" is blocked: RequireShellPass: no shell command containing one of "node -e" exited 0 this turn (\`${CHECK}\` exited 1)`, replies: [write('app.js', 'v2'), run(CHECK), say('Fixed.\nHANDOFF TO TESTER')] },
      ]),
      Tester: script([
        { turn: 2, when: 'The session cannot end yet: TestReportValid: test-report.json does not exist', replies: [write('test-report.json', report), say('Report written.')] },
        { turn: 1, replies: [say('Looks fine to me.')] },
      ]),
    });
    const { wf, workspace } = await start(b, 'make app.js v2');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Report written.');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer', 'turn-3-Tester', 'turn-4-Tester']);
    expect(fs.readFileSync(path.join(workspace, 'app.js'), 'utf8')).toBe('v2');
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'graph', position: 'tested', stopped: 'terminal: terminal node tested ran' });
  });
});

describe('examples/strategies/evidence-team (offline, scripted team, real files and commands; keyword, state machine and graph forms)', () => {
  const dir = path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'evidence-team');
  test.each([
    ['dev-team-keyword', 'RequireShellPass: no shell command containing one of "node slugify.test.js" exited 0 this turn (`node slugify.test.js` exited 1: expected hello-world, got hello,--world!); run it and fix the failures first: re-invoked'],
    ['dev-team-statemachine', 'contract ImplementationComplete: CommandSucceeded: run `node slugify.test.js` until it exits 0: re-invoked'],
    ['dev-team-graph', 'RequireShellPass: no shell command exited 0 this turn (`node slugify.test.js` exited 1: expected hello-world, got hello,--world!); run it and fix the failures first: re-invoked'],
  ])('%s: the failing test blocks the handoff, the fixed helper passes, the Reviewer approves', async (root, blocked) => {
    const { bundle: compiled, diagnostics } = compileBundle(dir, root);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const workspace = fs.mkdtempSync(path.join(tmp, `${root}-`));
    const wf = await dev.start(compiled!, compiled!.agents[root].interface.input.examples![0], { options: { workspace } });
    expect(String(((await wf.result()) as AgentRunResult).output)).toMatch(/"review".*\n```\nAPPROVED$/s);
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Planner', 'turn-2-Developer', 'turn-3-Developer', 'turn-4-Tester', 'turn-5-Reviewer']);
    // The real files: the fixed helper, the test the Developer wrote, the report, the change log.
    const slugify = require(path.join(workspace, 'slugify.js')) as (s: string) => string;
    expect(slugify('Hello,  World!')).toBe('hello-world');
    expect(JSON.parse(fs.readFileSync(path.join(workspace, 'test-report.json'), 'utf8'))).toMatchObject({ summary: { passed: 1, failed: 0 } });
    const log = JSON.parse(fs.readFileSync(path.join(workspace, 'changes.json'), 'utf8')) as { path: string }[];
    expect(log.map((e) => e.path)).toEqual(['brief.json', 'slugify.js', 'slugify.test.js', 'slugify.js', 'test-report.json']);
    const st = await wf.query(statusQuery);
    // Turn 3 is the Developer re-invoked because the real test run failed.
    expect((st.progress as { routes: { iteration: number; reason: string }[] }).routes.find((r) => r.iteration === 2)?.reason).toBe(blocked);
  });
});

// Last in the file: every run above (its latest execution) replays deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(10);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
}, 120_000);
