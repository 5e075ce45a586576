/**
 * Compat scenarios for seed 002 routing strategies (strategiesWorkflow), each stopped at a waiting
 * point mid-conversation, recorded, then finished on another version: keyword routing with a member
 * waiting for a tool approval, a graph edge waiting for route approval, and a parallel fan-out with
 * one branch waiting (patch `strategies-transcript-store`: the transcript's home is chosen at the
 * start); a state machine whose MaxRevisits escalation reads ReviewArtifactPath from evidence (patch
 * `strategies-review-artifact`: such runs gather evidence without validators). Registered in scenarios.ts.
 */
import type { CompiledAgent } from '../../src/compiler/types';
import { agent as member, answers, byInput } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';
import { fanOutConfig, strategiesTeam } from '../strategies/team';
import type { Scenario } from './scenarios';
import type { Member } from './tree';

/** A speaker that calls `arithmetic` (approval required) with a and b, then answers `reply` (`{{last_tool_result}}` filled in). */
export function approvingSpeaker(id: string, reply: string, a = 2, b = 3): CompiledAgent {
  const m = member({ id, model: { turns: [{ tool_calls: [{ id: `${id}-c1`, name: 'arithmetic', arguments: { a, b, op: 'add' } }] }, { content: reply }] } });
  m.tools = { ...m.tools, refs: [builtinTool('arithmetic', { approval_required: true })] };
  // Waiting on a person may outlast the builders' 60 s run timeout (recording, replay, upgrade).
  m.runtime = { ...m.runtime, timeout_seconds: 3600 };
  return m;
}

/** Tool approvals pending in the open members whose workflow id passes `where`. */
const pendingIn = (tree: Member[], where: (id: string) => boolean): number =>
  tree.filter((m) => m.open && where(m.workflowId)).reduce((n, m) => n + (m.status?.pending_approvals.length ?? 0), 0);

export function strategiesScenarios(): Scenario[] {
  return [
    {
      name: 'strategies-keyword-mid-conversation',
      waitsAt: 'keyword routing mid-conversation: the Writer routed to the Checker by keyword, the Checker (turn 2) waiting for tool approval',
      patches: ['strategies-transcript-store'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-kw', {
          Selection: { Type: 'keyword', Routes: [{ Keyword: 'CHECK IT', Agent: 'Checker', SourceAgents: ['Writer'] }, { Keyword: 'DONE', Agent: 'Checker', SourceAgents: ['Checker'] }] },
        }, {
          Writer: member({ id: 'kw-writer', model: answers('Draft ready.\nCHECK IT') }),
          Checker: approvingSpeaker('kw-checker', 'checked {{last_tool_result}}\nDONE', 3, 4),
        }),
      input: 'write it',
      ready: (t) => pendingIn(t, (id) => id.endsWith('/turn-2-Checker')) === 1,
      expected: 'checked 7\nDONE',
    },
    {
      name: 'strategies-graph-route-approval',
      waitsAt: 'keyword graph: the writer node emitted PUBLISH, the edge (RequireHumanApproval) waiting for the operator (route-1)',
      patches: ['strategies-transcript-store'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-graph', {
          Selection: {
            Type: 'graph',
            Graph: {
              EntryNode: 'writer',
              Nodes: [{ Id: 'writer', Agent: 'Writer' }, { Id: 'publisher', Agent: 'Publisher', Terminal: true }],
              Edges: [{ From: 'writer', To: 'publisher', Keyword: 'PUBLISH', RequireHumanApproval: true }],
            },
          },
        }, {
          Writer: member({ id: 'gr-writer', model: answers('Final copy.\nPUBLISH') }),
          Publisher: member({ id: 'gr-publisher', model: byInput([{ contains: '[Writer]\nFinal copy.', reply: { content: 'published the final copy' } }], { content: 'published blind' }) }),
        }),
      input: 'publish it',
      ready: (t) => (t[0]?.status?.pending_approvals ?? []).some((p) => p.call_id === 'route-1'),
      expected: 'published the final copy',
    },
    {
      name: 'strategies-fan-out-mid-branch',
      waitsAt: 'statemachine parallel fan-out: one branch done, the other waiting for tool approval, the join state not started',
      patches: ['strategies-transcript-store'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-fan', fanOutConfig(), {
          Planner: member({ id: 'fan-planner', model: answers('Split it.\nIMPLEMENT') }),
          BackendDev: approvingSpeaker('fan-backend', 'API ready: {{last_tool_result}}', 20, 22),
          FrontendDev: member({ id: 'fan-frontend', model: answers('UI ready') }),
          Integrator: member({ id: 'fan-integrator', model: byInput([{ contains: 'API ready: 42', reply: { content: 'integrated API 42 and UI' } }], { content: 'nothing to integrate' }) }),
        }),
      input: 'feature',
      ready: (t) => pendingIn(t, (id) => id.includes('-branch-0-')) === 1 && t.some((m) => m.workflowId.includes('-branch-1-') && !m.open),
      expected: 'integrated API 42 and UI',
    },
    {
      name: 'strategies-revisits-review-artifact',
      waitsAt: 'statemachine with MaxRevisits and ReviewArtifactPath (no validators, no contracts): the Planner (turn 1) waiting for tool approval; later the back-edge exceeds MaxRevisits',
      patches: ['strategies-review-artifact'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-revisits', {
          Selection: {
            Type: 'statemachine',
            StateMachine: {
              Initial: 'Planning',
              States: {
                Planning: { Agent: 'Planner', Transitions: [{ To: 'Implementation', Signal: 'HANDOFF TO DEVELOPER' }] },
                Implementation: { Agent: 'Developer', Transitions: [{ To: 'Review', Signal: 'HANDOFF TO REVIEWER' }] },
                Review: { Agent: 'Reviewer', Transitions: [{ To: 'Done', Signal: 'APPROVED' }, { To: 'Implementation', Signal: 'REVISION REQUIRED', MaxRevisits: 1, ReviewArtifactPath: 'review.md' }] },
                Done: { Agent: 'Reviewer', Terminal: true },
              },
            },
          },
          Termination: { Type: 'regex', Pattern: '\\bAPPROVED\\b', AgentNames: ['Reviewer'], MaxIterations: 12 },
        }, {
          Planner: approvingSpeaker('rv-planner', 'Plan {{last_tool_result}}\nHANDOFF TO DEVELOPER'),
          Developer: member({ id: 'rv-developer', model: answers('Code.\nHANDOFF TO REVIEWER') }),
          // Both versions escalate with this sentence; only the patched one also quotes review.md (absent here).
          Reviewer: member({ id: 'rv-reviewer', model: byInput([{ contains: 'has already fired 1 time(s), its MaxRevisits.', reply: { content: 'Objections settled.\nAPPROVED' } }], { content: 'Naming.\nREVISION REQUIRED' }) }),
        }),
      input: 'build it',
      ready: (t) => pendingIn(t, (id) => id.endsWith('/turn-1-Planner')) === 1,
      expected: 'Objections settled.\nAPPROVED',
    },
  ];
}
