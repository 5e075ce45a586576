/**
 * fuseraft's failure classification and FailureHandling on a real Temporal dev server: a NoProgress
 * failure escalated to the operator (the run waits on call id `failure-<n>`; approve re-invokes the
 * agent with the operator's note, reject stops the run), an audit request reaching the agent, and a
 * failure type whose handling is `stop`. Members are scripted: each reads its whole first message.
 */
import type { ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { approveUpdate, rejectUpdate, statusQuery } from '../../src/shared/definitions';
import { answers, byInput } from '../orchestration/builders';
import { failureOf } from '../orchestration/harness';
import { until } from '../helpers/wait';
import { recordingHarness } from './dev-server';
import { scriptedTeam } from './team';

const dev = recordingHarness('strat-failure');
const say = (content: string): ScriptedReply => ({ content });

/** Keyword routing, Developer first: HANDOFF TO TESTER to the Tester, whose DONE ends the run. */
const team = (root: string, failureHandling: Record<string, string>, developer: ScriptedModelConfig) => scriptedTeam(root, {
  Selection: {
    Type: 'keyword', DefaultAgent: 'Developer',
    Routes: [
      { Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', SourceAgents: ['Developer'] },
      { Keyword: 'BUGS FOUND', Agent: 'Developer', SourceAgents: ['Tester'] },
      { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] },
    ],
  },
  FailureHandling: failureHandling,
}, { Developer: developer, Tester: answers('All green.\nDONE') });

/** A Developer that never says anything routable. */
const stalling = answers('Still thinking about the parser.');

const pendingOf = async (wfId: string) => until(async () => (await dev.h.t.client.workflow.getHandle(wfId).query(statusQuery)).pending_approvals?.[0], 'the failure escalation', 60_000);

describe('FailureHandling escalate (HITL escalation)', () => {
  test('the same failure twice is NoProgress: the run waits for the operator; approved, the agent is re-invoked; rejected, the run stops with the operator\'s reason', async () => {
    const wf = await dev.start(team('fh-escalate', { NoProgress: 'escalate' }, stalling), 'write the parser');
    const pending = await pendingOf(wf.workflowId);
    expect(pending).toMatchObject({ call_id: 'failure-1', tool: 'escalation', arguments: { failure: 'NoProgress', agent: 'Developer', what: 'no routing keyword' } });
    const st = await wf.query(statusQuery);
    expect(st.state).toBe('waiting_for_approval');
    // Waiting, nothing else ran: two Developer turns (MissingSignal, then the same again).
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer']);
    await wf.executeUpdate(approveUpdate, { args: [{ call_id: 'failure-1', by: 'ops' }] });
    // Approved, the Developer is re-invoked and stalls the same way: NoProgress again, escalated as failure-2.
    const second = await until(async () => {
      const p = (await wf.query(statusQuery)).pending_approvals?.[0];
      return p?.call_id === 'failure-2' ? p : undefined;
    }, 'the second escalation', 60_000);
    expect(second).toMatchObject({ tool: 'escalation', arguments: { failure: 'NoProgress' } });
    await wf.executeUpdate(rejectUpdate, { args: [{ call_id: 'failure-2', reason: 'split the parser first' }] });
    expect(await failureOf(wf)).toMatch(/ValidatorStuck.*NoProgress escalated to the operator, who stopped the run: split the parser first \(Developer: no routing keyword\)/);
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer', 'turn-3-Developer']);
    const routes = (st.progress as { routes: { reason: string; failure?: string }[] }).routes;
    expect(routes.map((r) => r.failure)).toEqual([undefined, 'MissingSignal', undefined]);
    expect(routes[2].reason).toBe('NoProgress escalated to the operator (FailureHandling): Developer: no routing keyword');
  }, 180_000);

  test('an approval whose agent then signals lets the route fire: the run finishes', async () => {
    const dev2 = byInput([{ contains: 'The operator reviewed this NoProgress failure (no routing keyword) and lets you continue.', reply: say('Reconsidered.\nHANDOFF TO TESTER') }], say('Still thinking about the parser.'));
    const wf = await dev.start(team('fh-approve', { NoProgress: 'escalate' }, dev2), 'write the parser');
    await pendingOf(wf.workflowId);
    await wf.executeUpdate(approveUpdate, { args: [{ call_id: 'failure-1' }] });
    expect(((await wf.result()) as AgentRunResult).output).toBe('All green.\nDONE');
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer', 'turn-3-Developer', 'turn-4-Tester']);
  }, 180_000);
});

describe('FailureHandling audit and stop', () => {
  test('MissingSignal: audit sends the audit request; UnauthorizedSignal: stop ends the run at its first occurrence', async () => {
    const developer = byInput([{ contains: 'Audit request (MissingSignal): Developer\'s turn was refused: no routing keyword.', reply: say('I found bugs.\nBUGS FOUND') }], say('Thinking.'));
    const wf = await dev.start(team('fh-audit-stop', { MissingSignal: 'audit', UnauthorizedSignal: 'stop' }, developer), 'write the parser');
    expect(await failureOf(wf)).toMatch(/ValidatorStuck.*UnauthorizedSignal stops the run \(FailureHandling: UnauthorizedSignal: stop\): Developer: keyword "BUGS FOUND" belongs to another role/);
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer']);
  }, 180_000);
});

describe('the Verifier meta-agent', () => {
  test('statemachine: a NoProgress failure gives the Verifier one audit turn; the state\'s agent then reads its findings and goes on', async () => {
    const config = {
      Selection: {
        Type: 'statemachine',
        StateMachine: {
          Initial: 'Implementation',
          States: {
            Implementation: { Agent: 'Developer', Transitions: [{ To: 'Testing', Signal: 'HANDOFF TO TESTER' }] },
            Testing: { Agent: 'Tester', Terminal: true },
          },
        },
      },
      Verifier: 'Auditor',
      Termination: { Type: 'regex', Pattern: 'DONE', AgentNames: ['Tester'], MaxIterations: 8 },
    };
    const developer = byInput([{ contains: 'AUDITOR FINDINGS: no hand-off signal', reply: say('Done now.\nHANDOFF TO TESTER') }], say('Still thinking about the parser.'));
    const auditor = byInput([{ contains: 'Verifier audit (NoProgress) in state Implementation: Developer\'s hand-off was refused: no signal.', reply: say('AUDITOR FINDINGS: no hand-off signal in two replies.') }], say('nothing to audit'));
    const wf = await dev.start(scriptedTeam('fh-verifier', config, { Developer: developer, Auditor: auditor, Tester: answers('All green.\nDONE') }), 'write the parser');
    expect(((await wf.result()) as AgentRunResult).output).toBe('All green.\nDONE');
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer', 'turn-3-Auditor', 'turn-4-Developer', 'turn-5-Tester']);
  }, 180_000);
});

// Last in the file: every run above (its latest execution) replays deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(4);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
  expect(outcomes).toHaveLength(dev.started.length);
}, 120_000);
