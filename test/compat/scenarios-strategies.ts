/**
 * Compat scenarios for seed 002 routing strategies (strategiesWorkflow), each stopped at a waiting
 * point mid-conversation, recorded, then finished on another version: keyword, roundrobin,
 * sequential and structured routing with a member waiting for a tool approval, a graph edge waiting
 * for route approval, and a parallel fan-out with one branch waiting (patch `strategies-transcript-store`: the transcript's home is chosen at the
 * start); a state machine whose MaxRevisits escalation reads ReviewArtifactPath from evidence (patch
 * `strategies-review-artifact`: such runs gather evidence without validators); a roundrobin whose
 * tool-less members run inline (patch `strategies-members-inline`). Registered in scenarios.ts.
 */
import type { CompiledAgent } from '../../src/compiled/types';
import { agent as member, answers, byInput } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';
import { fanOutConfig, reviewLoopConfig, strategiesTeam } from '../strategies/team';
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

/** A member without the builders' 60 s runtime.timeout_seconds: tool-less, it qualifies to run inline (patch `strategies-members-inline`). */
export function untimed(a: CompiledAgent): CompiledAgent {
  const { timeout_seconds: _, ...runtime } = a.runtime;
  return { ...a, runtime };
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
      name: 'strategies-roundrobin-mid-round',
      waitsAt: 'roundrobin: A spoke, B (turn 2) waiting for tool approval; C and A follow until maxiterations 4',
      patches: ['strategies-transcript-store'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-rr', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 4 } }, {
          A: member({ id: 'rr-a', model: byInput([{ contains: '[C]\nc saw b 5', reply: { content: 'a saw the round' } }], { content: 'a' }) }),
          B: approvingSpeaker('rr-b', 'b {{last_tool_result}}'),
          C: member({ id: 'rr-c', model: byInput([{ contains: '[B]\nb 5', reply: { content: 'c saw b 5' } }], { content: 'c blind' }) }),
        }),
      input: 'go',
      ready: (t) => pendingIn(t, (id) => id.endsWith('/turn-2-B')) === 1,
      expected: 'a saw the round',
    },
    {
      name: 'strategies-roundrobin-inline-members',
      waitsAt: 'roundrobin of one-model-call members A and C (inline on patch strategies-members-inline) and B with a tool: A spoke, B (turn 2, a child) waiting for tool approval; C and A follow until maxiterations 4',
      patches: ['strategies-transcript-store', 'strategies-members-inline'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-rr-inline', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 4 } }, {
          A: untimed(member({ id: 'rri-a', model: byInput([{ contains: '[C]\nc saw b 5', reply: { content: 'a saw the round' } }], { content: 'a' }) })),
          B: approvingSpeaker('rri-b', 'b {{last_tool_result}}'),
          C: untimed(member({ id: 'rri-c', model: byInput([{ contains: '[B]\nb 5', reply: { content: 'c saw b 5' } }], { content: 'c blind' }) })),
        }),
      input: 'go',
      ready: (t) => pendingIn(t, (id) => id.endsWith('/turn-2-B')) === 1,
      expected: 'a saw the round',
    },
    {
      name: 'strategies-sequential-mid-pass',
      waitsAt: 'sequential: the First agent (turn 1) waiting for tool approval, the Second not started',
      patches: ['strategies-transcript-store'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-seq', { Selection: { Type: 'sequential' } }, {
          First: approvingSpeaker('seq-first', 'first {{last_tool_result}}'),
          Second: member({ id: 'seq-second', model: byInput([{ contains: '[First]\nfirst 5', reply: { content: 'second after first 5' } }], { content: 'second blind' }) }),
        }),
      input: 'go',
      ready: (t) => pendingIn(t, (id) => id.endsWith('/turn-1-First')) === 1,
      expected: 'second after first 5',
    },
    {
      name: 'strategies-structured-mid-review',
      waitsAt: 'structured: the Drafter routed by draft_content, the Reviewer (turn 2) waiting for tool approval before its JSON verdict routes to the Publisher',
      patches: ['strategies-transcript-store'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-structured', {
          Selection: {
            Type: 'structured', DefaultAgent: 'Drafter',
            StructuredRoutes: [
              { Agent: 'Reviewer', Condition: { Field: 'draft_content', Exists: true }, SourceAgents: ['Drafter'] },
              { Agent: 'Publisher', Condition: { Field: 'review_result', Is: 'Yes' }, SourceAgents: ['Reviewer'] },
              { Agent: 'Drafter', Condition: { Field: 'review_result', Is: 'No' }, SourceAgents: ['Reviewer'] },
            ],
          },
          Termination: { Type: 'regex', Pattern: 'PUBLISHED', AgentNames: ['Publisher'], MaxIterations: 6 },
        }, {
          Drafter: member({ id: 'st-drafter', model: answers('{"draft_content": "Roses are red"}') }),
          Reviewer: approvingSpeaker('st-reviewer', '{"review_result": "yes", "score": {{last_tool_result}}}'),
          Publisher: member({ id: 'st-publisher', model: byInput([{ contains: '"score": 5', reply: { content: 'PUBLISHED with score 5' } }], { content: 'PUBLISHED blind' }) }),
        }),
      input: 'a poem',
      ready: (t) => pendingIn(t, (id) => id.endsWith('/turn-2-Reviewer')) === 1,
      expected: 'PUBLISHED with score 5',
    },
    {
      name: 'strategies-revisits-review-artifact',
      waitsAt: 'statemachine with MaxRevisits and ReviewArtifactPath (no validators, no contracts): the Planner (turn 1) waiting for tool approval; later the back-edge exceeds MaxRevisits',
      patches: ['strategies-review-artifact'],
      workflowType: 'strategiesWorkflow',
      bundle: () =>
        strategiesTeam('c-strat-revisits', reviewLoopConfig({ MaxRevisits: 1, ReviewArtifactPath: 'review.md' }, { planning: true, maxIterations: 12 }), {
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
