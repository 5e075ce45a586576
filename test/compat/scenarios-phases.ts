/**
 * Compat scenarios for the seed 002 phase strategies (scattergather, mapreduce, adversarial in
 * strategiesWorkflow): each stopped while a member waits for a tool approval mid-phase, recorded,
 * then finished on another version. They reach patch `phases-workspace` (the shared workspace is
 * resolved at the start of the run) and guard the phase code paths against nondeterministic
 * changes from here on; `since` skips them on a base before the phase strategies.
 */
import type { CompiledAgent, CompiledBundle, StrategiesPattern } from '../../src/compiled/types';
import { agent as member, answers, bundle } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';
import type { Scenario } from './scenarios';
import type { Member } from './tree';

/** Calls `arithmetic` (approval required) once, then answers `reply` ({{last_tool_result}} filled in). */
function approvingSpeaker(id: string, reply: string): CompiledAgent {
  const m = member({ id, model: { turns: [{ tool_calls: [{ id: `${id}-c1`, name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] }, { content: reply }] } });
  m.tools = { ...m.tools, refs: [builtinTool('arithmetic', { approval_required: true })] };
  m.runtime = { ...m.runtime, timeout_seconds: 3600 };
  return m;
}

function team(root: string, selection: Record<string, unknown>, members: Record<string, CompiledAgent>): CompiledBundle {
  const pattern: StrategiesPattern = { type: 'strategies', agents: Object.entries(members).map(([name, a]) => ({ name, agent_id: a.agent_id })), config: { Selection: selection } as StrategiesPattern['config'] };
  return bundle(root, [member({ id: root, model: answers('orchestrator'), pattern }), ...Object.values(members)]);
}

const waiting = (t: Member[], suffix: string): boolean =>
  t.some((m) => m.open && m.workflowId.endsWith(suffix) && (m.status?.pending_approvals.length ?? 0) === 1);

export function phaseScenarios(): Scenario[] {
  return [
    {
      name: 'phases-scatter-gather-mid-scatter',
      waitsAt: 'scattergather: one participant answered, the other waiting for tool approval, the synthesizer not started',
      patches: ['phases-workspace'],
      since: '7dd80b2',
      workflowType: 'strategiesWorkflow',
      bundle: () => team('c-sg', { Type: 'scattergather', ScatterGather: { Participants: ['Fast', 'Careful'], Synthesizer: 'Lead', MaxConcurrency: 0 } }, {
        Fast: member({ id: 'sg-fast', model: answers('fast view') }),
        Careful: approvingSpeaker('sg-careful', 'careful view {{last_tool_result}}'),
        Lead: member({ id: 'sg-lead', model: { turns: [{ content: '{{message}}' }] } }),
      }),
      input: 'review it',
      ready: (t) => waiting(t, '/scatter-2-Careful') && t.some((m) => m.workflowId.endsWith('/scatter-1-Fast') && !m.open),
      expected: '# Task\nreview it\n\n# Participant outputs\n\n[Participant: Fast]\nfast view\n\n[Participant: Careful]\ncareful view 5',
    },
    {
      name: 'phases-map-reduce-mid-map',
      waitsAt: 'mapreduce: split done, the first mapper run waiting for tool approval (MaxConcurrency 1), the other items not started',
      patches: ['phases-workspace'],
      since: '7dd80b2',
      workflowType: 'strategiesWorkflow',
      bundle: () => team('c-mr', { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', MaxConcurrency: 1 } }, {
        Splitter: member({ id: 'mr-splitter', model: answers('{"items": ["a", "b"]}') }),
        Mapper: approvingSpeaker('mr-mapper', 'mapped {{input}} {{last_tool_result}}'),
        Reducer: member({ id: 'mr-reducer', model: { turns: [{ content: '{{message}}' }] } }),
      }),
      input: 'map it',
      ready: (t) => waiting(t, '/map-1'),
      expected: '# Task\nmap it\n\n# Mapper outputs (2 items, in item order)\n\n[Item 1]\nmapped a 5\n\n[Item 2]\nmapped b 5',
    },
    {
      name: 'phases-adversarial-mid-critique',
      waitsAt: 'adversarial: the generator produced v1, the critic (round 1) waiting for tool approval before it rejects; a revision and a second critique follow',
      patches: ['phases-workspace'],
      since: '7dd80b2',
      workflowType: 'strategiesWorkflow',
      bundle: () => team('c-adv', { Type: 'adversarial', Adversarial: { Rounds: 2, Stages: [{ Generator: 'Writer', Critic: 'Critic' }] } }, {
        Writer: member({ id: 'adv-writer', model: { rules: [{ when: { input_contains: '# Critique from Critic' }, reply: { content: 'draft v2' } }], turns: [{ content: 'draft v1' }] } }),
        Critic: (() => {
          const c = approvingSpeaker('adv-critic', 'too short ({{last_tool_result}})');
          c.runtime.model.scripted = { rules: [{ when: { input_contains: 'draft v2' }, reply: { content: 'APPROVED' } }], turns: c.runtime.model.scripted!.turns };
          return c;
        })(),
      }),
      input: 'write it',
      ready: (t) => waiting(t, '/stage-1-critique-1-Critic'),
      expected: 'draft v2',
    },
    {
      name: 'phases-map-shard-suggested-continue-as-new',
      waitsAt: "none: mapreduce map shards (12 items each) continue-as-new on Temporal's own suggestion (server limit 40 events)",
      patches: ['phases-workspace'],
      since: '7dd80b2',
      workflowType: 'strategiesWorkflow',
      server: { 'limit.historyCount.suggestContinueAsNew': 40 },
      bundle: () => {
        const mapper = member({ id: 'can-mapper', model: { turns: [{ content: 'mapped {{input}}' }] } });
        // A plain single-turn mapper runs inline in its shard (no run timeout).
        delete (mapper.runtime as { timeout_seconds?: number }).timeout_seconds;
        return team('c-mr-can', { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', MaxConcurrency: 2 } }, {
          Splitter: member({ id: 'can-splitter', model: answers(JSON.stringify({ items: Array.from({ length: 24 }, (_, i) => `v${i + 1}`) })) }),
          Mapper: mapper,
          Reducer: member({ id: 'can-reducer', model: { turns: [{ content: '{{message}}' }] } }),
        });
      },
      input: 'map all',
      options: { scale: { batch_shard_size: 12 } },
      ready: (t) => !t[0]?.open,
      expected: `# Task\nmap all\n\n# Mapper outputs (24 items, in item order)\n\n${Array.from({ length: 24 }, (_, i) => `[Item ${i + 1}]\nmapped v${i + 1}`).join('\n\n')}`,
    },
  ];
}
