/**
 * Determinism guard: histories of representative react runs (scripted) are stored under
 * test/fixtures/histories/react-*.json and replayed against the CURRENT workflow bundle, so a
 * change that breaks replay fails the suite.
 *
 * Recording never overwrites a fixture unless it is named: an existing recording is the guard for
 * runs started by the code that recorded it.
 *   Record the missing ones:          LOOM_RECORD_HISTORIES=1 npx jest test/runtime/react.replay
 *   Record the missing feature ones:  LOOM_RECORD_HISTORIES=features npx jest test/runtime/react.replay
 *   Replace named ones on purpose:    LOOM_RECORD_OVERWRITE=react-tools,react-approval LOOM_RECORD_HISTORIES=1 …
 * New behaviour is better recorded on both sides with `npm run replay:compat -- --record [--at REV]`.
 */
import * as fs from 'fs';
import * as path from 'path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { replayFiles } from '../helpers/replay';
import { agent, builtinTool, bundleOf, scriptedModel, storeTestBundle } from './builders';
import { Harness, startHarness, waitForStatus } from './harness';

const DIR = path.join(__dirname, '..', 'fixtures', 'histories');
const RECORD = process.env.LOOM_RECORD_HISTORIES === '1';
/** Write a fixture only when it is missing or named in LOOM_RECORD_OVERWRITE. */
function saveFixture(name: string, json: string): void {
  const file = path.join(DIR, `${name}.json`);
  const overwrite = (process.env.LOOM_RECORD_OVERWRITE ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (fs.existsSync(file) && !overwrite.includes(name)) {
    process.stderr.write(`kept ${name}.json (exists; name it in LOOM_RECORD_OVERWRITE to record it again)\n`);
    return;
  }
  fs.writeFileSync(file, json);
}
const REQUIRED = ['react-approval', 'react-before-can', 'react-continued', 'react-delegate', 'react-escalate-fallback', 'react-tools'].map((n) => `${n}.json`);

async function record(): Promise<void> {
  const H: Harness = await startHarness('react-record');
  try {
    // 1. Tools (concurrent calls), a correction turn and an output schema.
    const a = agent({
      agent_id: 'replay-tools',
      model: scriptedModel({
        rules: [{ when: { last_message_contains: 'not accepted' }, reply: { content: { sum: '{{last_tool_result}}' } } }],
        turns: [
          { tool_calls: [{ name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }, { name: 'echo', arguments: { text: 'hi' } }] },
          { tool_calls: [{ name: 'arithmetic', arguments: { a: 'bad', b: 3, op: 'add' } }, { name: 'nope', arguments: {} }] },
          { content: 'not json' },
        ],
      }),
      tools: [builtinTool('arithmetic'), builtinTool('echo')],
      output_schema: { type: 'object', properties: { sum: { type: 'string' } }, required: ['sum'] },
    });
    const h1 = await H.start({ bundle: await storeTestBundle(bundleOf(a)), agent_id: 'replay-tools', input: 'x' }, 'replay-tools-1');
    await h1.result();
    // 2. Approval with pause/resume and corrected arguments, plus a rejection.
    const b = agent({
      agent_id: 'replay-approval',
      model: scriptedModel({
        turns: [
          { tool_calls: [{ id: 'c1', name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul' } }, { id: 'c2', name: 'echo', arguments: { text: 'x' } }] },
          { content: 'answer {{last_tool_result}}' },
        ],
      }),
      tools: [builtinTool('arithmetic', { approval_required: true }), builtinTool('echo', { approval_required: true })],
    });
    const h2 = await H.start({ bundle: await storeTestBundle(bundleOf(b)), agent_id: 'replay-approval', input: 'x' }, 'replay-approval-1');
    await waitForStatus(h2, (s) => s.pending_approvals.length === 2);
    await h2.signal('pause');
    await h2.executeUpdate('approveCall', { args: [{ call_id: 'c1', args: { a: 1, b: 1, op: 'add' } }] });
    await h2.signal('reject', { call_id: 'c2', reason: 'not needed' });
    await h2.signal('resume');
    await h2.result();
    // 3. Continue-as-new and a limit hit.
    const c = agent({
      agent_id: 'replay-long',
      model: scriptedModel({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'loop' } }] }] }),
      tools: [builtinTool('echo')],
      react: { max_steps: 12 },
    });
    const h3 = await H.start({ bundle: await storeTestBundle(bundleOf(c)), agent_id: 'replay-long', input: 'x', carried: { continue_as_new_every: 3 } }, 'replay-long-1');
    await h3.result().catch(() => undefined);
    fs.mkdirSync(DIR, { recursive: true });
    for (const [name, h] of [['react-tools', h1], ['react-approval', h2]] as const) {
      saveFixture(name, historyToJSON(await h.fetchHistory()));
    }
    // The last execution of the long run (after continue-as-new, it starts from carried state).
    saveFixture('react-continued', historyToJSON(await H.t.client.workflow.getHandle('replay-long-1').fetchHistory()));
    const first = H.t.client.workflow.getHandle('replay-long-1', h3.firstExecutionRunId);
    saveFixture('react-before-can', historyToJSON(await first.fetchHistory()));
  } finally {
    await H.close();
  }
}

/** Later features, each behind a patch: recorded only when their file is missing. */
async function recordFeatures(): Promise<void> {
  const H: Harness = await startHarness('react-record-features');
  const save = async (name: string, id: string) => {
    saveFixture(name, historyToJSON(await H.t.client.workflow.getHandle(id).fetchHistory()));
  };
  try {
    // Delegation (patch delegate-tool): one allowed delegate runs, one refused.
    if (!fs.existsSync(path.join(DIR, 'react-delegate.json'))) {
      const helper = agent({ agent_id: 'replay-helper', model: scriptedModel({ turns: [{ content: 'helped {{input}}' }] }) });
      const lead = agent({
        agent_id: 'replay-lead',
        model: scriptedModel({
          turns: [
            { tool_calls: [{ id: 'd1', name: 'delegate_to_agent', arguments: { agent_id: 'replay-helper', input: 'x' } }, { id: 'd2', name: 'delegate_to_agent', arguments: { agent_id: 'rogue', input: 'y' } }] },
            { content: 'done {{last_tool_result}}' },
          ],
        }),
      });
      lead.orchestration = { ...lead.orchestration, can_delegate: true, allowed_delegates: ['replay-helper'] };
      await (await H.start({ bundle: await storeTestBundle(bundleOf(lead, helper)), agent_id: 'replay-lead', input: 'go' }, 'react-delegate')).result();
      await save('react-delegate', 'react-delegate');
    }
    // Approval timeout escalated to a human queue, then approved (patch approval-timeout-escalate),
    // and a model outage handed to the fallback model (patch model-failure-fallback).
    if (!fs.existsSync(path.join(DIR, 'react-escalate-fallback.json'))) {
      const a = agent({
        agent_id: 'replay-esc',
        model: scriptedModel({ rules: [{ when: { turn: 1 }, reply: { error: { status: 503, message: 'down' } } }], turns: [{ tool_calls: [{ id: 'e1', name: 'arithmetic', arguments: { a: 2, b: 2, op: 'add' } }] }] }, 'primary'),
        fallback_model: scriptedModel({ turns: [{ content: 'fallback says {{last_tool_result}}' }] }, 'backup'),
        tools: [builtinTool('arithmetic', { approval_required: true })],
        runtime: { retry_policy: { max_attempts: 1, backoff_seconds: 1 } },
      });
      a.orchestration.escalation = [{ on: 'timeout', target: { type: 'human_queue', id: 'approvals-desk' } }];
      const h = await H.start({ bundle: await storeTestBundle(bundleOf(a)), agent_id: 'replay-esc', input: 'go', options: { approval_timeout_seconds: 1, on_approval_timeout: 'escalate' } }, 'react-escalate-fallback');
      await waitForStatus(h, (st) => st.warnings.some((w) => /escalated/.test(w)));
      await h.executeUpdate('approveCall', { args: [{ call_id: 'e1' }] });
      await h.result();
      await save('react-escalate-fallback', 'react-escalate-fallback');
    }
  } finally {
    await H.close();
  }
}

test('recorded react histories replay against the current workflow bundle', async () => {
  if (RECORD) await record();
  if (process.env.LOOM_RECORD_HISTORIES === 'features') await recordFeatures();
  const files = fs.readdirSync(DIR).filter((f) => f.startsWith('react-') && f.endsWith('.json')).sort();
  // The recordings this guard was built on (others may be added; none may disappear).
  expect(files).toEqual(expect.arrayContaining(REQUIRED));
  // Replay under the recorded workflow id (= the file name for recordings with child workflows);
  // one outcome per file, or replayFiles fails.
  const results = await replayFiles(DIR, files);
  expect(results.map((r) => r.workflowId)).toEqual(files.map((f) => f.replace(/\.json$/, '')));
  expect(results.filter((r) => r.error)).toEqual([]);
});
