/**
 * Seed 002 `Selection.Type: magentic` on a real Temporal dev server: a scripted manager model
 * (compiled into the pattern's `models`) answers magentic_orientation, magentic_ledger_update and
 * magentic_select_speaker by the prompt it is given; participants are scripted member turns.
 */
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { ScriptedModelConfig, ScriptedReply, StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { approveUpdate, rejectUpdate, statusQuery } from '../../src/shared/definitions';
import { agent, answers, bundle, scriptedModel } from '../orchestration/builders';
import { childIds, Harness, startHarness, waitFor } from '../orchestration/harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('phases-magentic'); });
afterAll(async () => { await h?.close(); });

const say = (content: string): ScriptedReply => ({ content });
const json = (v: unknown): ScriptedReply => say(JSON.stringify(v));
const when = (contains: string, reply: ScriptedReply) => ({ when: { last_message_contains: contains }, reply });
const ORIENT = (plan: string) => json({ task_summary: 'build the login page', facts: 'none yet', plan, next_step: 'write the code', completion_check: 'code reviewed' });

function magenticTeam(root: string, manager: ScriptedModelConfig, magentic: Record<string, unknown>) {
  const pattern = {
    type: 'strategies',
    agents: [{ name: 'Developer', agent_id: 'm-developer' }, { name: 'CodeReviewer', agent_id: 'm-codereviewer' }],
    config: { Selection: { Type: 'magentic', Magentic: { Model: { ModelId: 'manager' }, ...magentic } } },
    models: { manager: scriptedModel(manager, 'manager') },
  } as StrategiesPattern;
  return bundle(root, [
    agent({ id: root, model: answers('orchestrator'), pattern }),
    agent({ id: 'm-developer', model: { turns: [say('code: {{message}}')] }, description: 'writes the code' }),
    agent({ id: 'm-codereviewer', model: { turns: [say('LGTM')] }, description: 'reviews the code' }),
  ]);
}

/** A manager that plans "the manager plan", picks `speaker` once its prompt holds `plan`, and is done once `doneWhen` was said. */
function planReviewManager(plan: string, speaker: string, instruction: string, doneWhen: string): ScriptedModelConfig {
  return {
    rules: [
      when('magentic_orientation', ORIENT('the manager plan')),
      when(doneWhen, json({ task_complete: true, stalling: false, facts: 'done', reason: 'done' })),
      when('magentic_ledger_update', json({ task_complete: false, stalling: false, facts: 'none', reason: 'starting' })),
      when(plan, json({ next_speaker: speaker, instruction })),
    ],
  };
}

async function members(wfId: string): Promise<string[]> {
  return (await childIds(h, wfId)).map((id) => id.slice(wfId.length + 1)).sort();
}

describe('magentic', () => {
  test('orientation, then ledger + speaker each round with a focused instruction; an invalid ledger reply is corrected; the ledger ends it', async () => {
    const manager: ScriptedModelConfig = {
      rules: [
        when('magentic_orientation', ORIENT('1. Developer writes. 2. CodeReviewer reviews.')),
        // Round 2 (the reviewer has spoken): complete.
        when('[CodeReviewer]: LGTM', json({ task_complete: true, stalling: false, facts: 'reviewed', reason: 'the reviewer approved' })),
        // A ledger reply without the JSON asked for gets a correction, answered properly.
        when('Your previous reply could not be used: field "stalling" must be a boolean', json({ task_complete: false, stalling: false, facts: 'started', reason: 'progress' })),
        when('magentic_ledger_update', json({ task_complete: false, facts: 'x' })),
        when('[Developer]: code:', json({ next_speaker: 'codereviewer', instruction: 'Review the code.' })),
        when('magentic_select_speaker', json({ next_speaker: 'Developer', instruction: 'Write the login form.' })),
      ],
    };
    const wf = await h.start(magenticTeam('mag-ok', manager, {}), 'build the login page');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('LGTM');
    expect(res.warnings ?? []).toEqual([]);
    expect(await members(wf.workflowId)).toEqual(['round-1-Developer', 'round-2-CodeReviewer']);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'magentic', phase: 'done', round: 3, resets: 0 });
    expect(String((st.progress as { stopped?: string }).stopped)).toBe("complete: the manager's ledger says the task is complete (the reviewer approved)");
  }, 180_000);

  test('MaxRoundCount caps the rounds: a manager that never calls the task complete stops after 2 rounds with a warning', async () => {
    const manager: ScriptedModelConfig = {
      rules: [
        when('magentic_orientation', ORIENT('1. Developer writes, again and again.')),
        when('magentic_ledger_update', json({ task_complete: false, stalling: false, facts: 'more code', reason: 'still going' })),
        when('magentic_select_speaker', json({ next_speaker: 'Developer', instruction: 'Write more.' })),
      ],
    };
    const wf = await h.start(magenticTeam('mag-cap', manager, { MaxRoundCount: 2 }), 'build the login page');
    const res = (await wf.result()) as AgentRunResult;
    expect(await members(wf.workflowId)).toEqual(['round-1-Developer', 'round-2-Developer']);
    expect(res.warnings).toEqual(expect.arrayContaining(['magentic stopped after MaxRoundCount 2 round(s) without the ledger saying the task is complete']));
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'magentic', phase: 'done', round: 2, stopped: 'MaxRoundCount 2 reached' });
  }, 180_000);

  test('a 6-round session past a low history limit continues as new with its plan, stall counts, manager call count and transcript', async () => {
    // Manager calls: 0 orientation, then per round r a ledger (2r-1) and a speaker (2r); the round-6 ledger (call 11) says complete.
    const manager: ScriptedModelConfig = {
      rules: [
        when('magentic_orientation', ORIENT('the carried plan')),
        { when: { last_message_contains: 'magentic_ledger_update', turn: 11 }, reply: json({ task_complete: true, stalling: false, facts: 'done', reason: 'round 5 wrote the code' }) },
        when('magentic_ledger_update', json({ task_complete: false, stalling: false, facts: 'going', reason: 'progress' })),
        { when: { last_message_contains: 'the carried plan', turn: 10 }, reply: json({ next_speaker: 'Developer', instruction: 'Write it now.' }) },
        when('the carried plan', json({ next_speaker: 'CodeReviewer', instruction: 'Review.' })),
      ],
    };
    const wf = await h.start(magenticTeam('mag-can', manager, {}), 'build the login page', { options: { scale: { loop_history_events: 40 } } });
    const res = (await wf.result()) as AgentRunResult;
    const out = String(res.output);
    // The round-5 Developer saw the four reviewer turns of earlier rounds (earlier executions included).
    expect(out.startsWith('code: # Task\nbuild the login page\n\n# Conversation so far\n\n[CodeReviewer]\nLGTM')).toBe(true);
    expect(out.split('[CodeReviewer]\nLGTM').length - 1).toBe(4);
    expect(out.endsWith('# Instruction from the manager\nWrite it now.')).toBe(true);
    expect(res.warnings ?? []).toEqual([]);
    expect((await wf.describe()).runId).not.toBe(wf.firstExecutionRunId);
    expect(await members(wf.workflowId)).toEqual(['round-1-CodeReviewer', 'round-2-CodeReviewer', 'round-3-CodeReviewer', 'round-4-CodeReviewer', 'round-5-Developer']);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'magentic', phase: 'done', round: 6, stalls: 0, resets: 0 });
    expect(String((st.progress as { stopped?: string }).stopped)).toBe("complete: the manager's ledger says the task is complete (round 5 wrote the code)");
  }, 180_000);

  test('stalling rounds replan; past MaxResetCount the session ends with a stall message', async () => {
    const manager: ScriptedModelConfig = {
      rules: [
        when('magentic_orientation (replan)', ORIENT('PLAN B')),
        when('magentic_orientation', ORIENT('PLAN A')),
        when('magentic_ledger_update', json({ task_complete: false, stalling: true, facts: 'stuck', reason: 'no progress' })),
        when('# Plan\nPLAN B', json({ next_speaker: 'CodeReviewer', instruction: 'Try plan B.' })),
        when('magentic_select_speaker', json({ next_speaker: 'Developer', instruction: 'Try plan A.' })),
      ],
    };
    const wf = await h.start(magenticTeam('mag-stall', manager, { MaxStallCount: 2, MaxResetCount: 1 }), 'build the login page');
    const res = (await wf.result()) as AgentRunResult;
    const stall = 'magentic stalled: 2 consecutive round(s) without progress after 1 replan(s) (MaxStallCount 2, MaxResetCount 1)';
    expect(res.output).toBe(stall);
    expect(res.warnings).toEqual([stall]);
    // Round 1 stalls once (Developer on plan A); round 2 hits MaxStallCount: replan to plan B (CodeReviewer);
    // rounds 3 and 4 stall again, and round 4 is past MaxResetCount.
    expect(await members(wf.workflowId)).toEqual(['round-1-Developer', 'round-2-CodeReviewer', 'round-3-CodeReviewer']);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'magentic', phase: 'done', round: 4, resets: 1 });
  }, 180_000);

  test('EnablePlanReview: the run waits for the operator; a rejection carrying an edited plan replaces the plan', async () => {
    const wf = await h.start(magenticTeam('mag-review', planReviewManager('# Plan\nOPERATOR PLAN: Developer only', 'Developer', 'Follow the operator plan.', '[Developer]: code:'), { EnablePlanReview: true }), 'build the login page');
    const pending = await waitFor(async () => (await wf.query(statusQuery)).pending_approvals?.[0], 'the plan review', 60_000);
    expect(pending).toMatchObject({ call_id: 'plan-1', arguments: { plan: 'the manager plan' } });
    expect((await wf.query(statusQuery)).state).toBe('waiting_for_approval');
    const refused = (await wf.executeUpdate(approveUpdate, { args: [{ call_id: 'plan-9' }] }).catch((e: Error & { cause?: Error }) => e)) as Error & { cause?: Error };
    expect(refused.cause?.message).toMatch(/unknown call id 'plan-9'; the route waiting for approval is plan-1/);
    await wf.executeUpdate(rejectUpdate, { args: [{ call_id: 'plan-1', reason: 'OPERATOR PLAN: Developer only' }] });
    const res = (await wf.result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^code: # Task\nbuild the login page\n\n# Instruction from the manager\nFollow the operator plan\.$/);
    expect(await members(wf.workflowId)).toEqual(['round-1-Developer']);
  }, 180_000);

  test('EnablePlanReview: an approval goes on with the manager plan', async () => {
    const wf = await h.start(magenticTeam('mag-approve', planReviewManager('# Plan\nthe manager plan', 'CodeReviewer', 'Review.', '[CodeReviewer]: LGTM'), { EnablePlanReview: true }), 'build the login page');
    await waitFor(async () => (await wf.query(statusQuery)).pending_approvals?.[0], 'the plan review', 60_000);
    await wf.executeUpdate(approveUpdate, { args: [{ call_id: 'plan-1', by: 'ops' }] });
    expect(((await wf.result()) as AgentRunResult).output).toBe('LGTM');
    expect(await members(wf.workflowId)).toEqual(['round-1-CodeReviewer']);
  }, 180_000);
});

describe('the magentic example under examples/strategies runs offline', () => {
  test('managed-team: the manager plans, then picks Planner, Developer and CodeReviewer until its ledger says complete', async () => {
    const { bundle: compiled, diagnostics } = compileBundle(path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'magentic'), 'managed-team');
    expect(diagnostics).toEqual([]);
    const wf = await h.start(compiled!, compiled!.agents['managed-team'].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe('APPROVED');
    expect(await members(wf.workflowId)).toEqual(['round-1-Planner', 'round-2-Developer', 'round-3-CodeReviewer']);
  }, 180_000);
});
