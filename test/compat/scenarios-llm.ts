/**
 * Compat scenarios for seed 002 `llm` selection and `magentic` (strategiesWorkflow): each stopped
 * while the selected member waits for a tool approval, recorded, then finished on another version.
 * They reach patches `phases-continue-as-new` and `phases-workspace` (both decided at the start of
 * the run); `since` skips them on a base before these strategies ran.
 */
import type { CompiledAgent, CompiledBundle, StrategiesPattern } from '../../src/compiled/types';
import { agent as member, answers, bundle, scriptedModel } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';
import type { Scenario } from './scenarios';
import type { Member } from './tree';

function approvingSpeaker(id: string, reply: string): CompiledAgent {
  const m = member({ id, model: { turns: [{ tool_calls: [{ id: `${id}-c1`, name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] }, { content: reply }] } });
  m.tools = { ...m.tools, refs: [builtinTool('arithmetic', { approval_required: true })] };
  m.runtime = { ...m.runtime, timeout_seconds: 3600 };
  return m;
}

function team(root: string, config: Record<string, unknown>, manager: Parameters<typeof scriptedModel>[0], members: Record<string, CompiledAgent>): CompiledBundle {
  const pattern = {
    type: 'strategies',
    agents: Object.entries(members).map(([name, a]) => ({ name, agent_id: a.agent_id })),
    config,
    models: { 'compat-manager': scriptedModel(manager, 'compat-manager') },
  } as StrategiesPattern;
  return bundle(root, [member({ id: root, model: answers('orchestrator'), pattern }), ...Object.values(members)]);
}

const waiting = (t: Member[], suffix: string): boolean =>
  t.some((m) => m.open && m.workflowId.endsWith(suffix) && (m.status?.pending_approvals.length ?? 0) === 1);

const json = (v: unknown) => ({ content: JSON.stringify(v) });

export function llmScenarios(): Scenario[] {
  return [
    {
      name: 'phases-llm-mid-turn',
      waitsAt: 'llm selection: the selector picked the Writer (turn 1), waiting for tool approval; the selector then picks the Checker',
      patches: ['phases-continue-as-new', 'phases-workspace'],
      since: 'ebfa152',
      workflowType: 'strategiesWorkflow',
      bundle: () => team('c-llm', { Selection: { Type: 'llm', Model: { ModelId: 'compat-manager' } }, Termination: { Type: 'maxiterations', MaxIterations: 2 } },
        { rules: [{ when: { last_message_contains: '[Writer]:' }, reply: { content: 'Checker' } }], turns: [{ content: 'Writer' }] }, {
          Writer: approvingSpeaker('llm-writer', 'draft {{last_tool_result}}'),
          Checker: member({ id: 'llm-checker', model: answers('checked') }),
        }),
      input: 'write it',
      ready: (t) => waiting(t, '/turn-1-Writer'),
      expected: 'checked',
    },
    {
      name: 'phases-magentic-mid-round',
      waitsAt: 'magentic: after orientation and the round-1 ledger, the Developer (round 1) waiting for tool approval; round 2 ends on the ledger',
      patches: ['phases-continue-as-new', 'phases-workspace'],
      since: '66c7c59',
      workflowType: 'strategiesWorkflow',
      bundle: () => team('c-mag', { Selection: { Type: 'magentic', Magentic: { Model: { ModelId: 'compat-manager' } } } }, {
        rules: [
          { when: { last_message_contains: 'magentic_orientation' }, reply: json({ task_summary: 's', facts: 'f', plan: 'Developer builds', next_step: 'build', completion_check: 'built' }) },
          { when: { last_message_contains: '[Developer]: built' }, reply: json({ task_complete: true, stalling: false, facts: 'built', reason: 'done' }) },
          { when: { last_message_contains: 'magentic_ledger_update' }, reply: json({ task_complete: false, stalling: false, facts: 'f', reason: 'starting' }) },
          { when: { last_message_contains: 'magentic_select_speaker' }, reply: json({ next_speaker: 'Developer', instruction: 'Build it.' }) },
        ],
      }, {
        Developer: approvingSpeaker('mag-developer', 'built {{last_tool_result}}'),
      }),
      input: 'build it',
      ready: (t) => waiting(t, '/round-1-Developer'),
      expected: 'built 5',
    },
  ];
}
