/**
 * Seed 002 "Hierarchical sub-graphs" of kind MapReduce and ScatterGather on a real Temporal dev
 * server: the seed's two blocks, pasted unchanged, over a scripted team. The nested strategy's
 * agent turns are member runs of the graph's workflow; its terminal output is the node's turn, so
 * the edge keyword routes on it and the next agent reads it in the transcript.
 */
import * as path from 'path';
import { parse } from 'yaml';
import { compileBundle } from '../../src/compiler';
import type { ScriptedModelConfig } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { SUBGRAPH_GRAPH_YAML, SUBGRAPH_MAPREDUCE_YAML, SUBGRAPH_SCATTER_YAML } from './seed-examples';
import { recordingHarness } from './dev-server';
import { scriptedTeam as team } from './team';

const dev = recordingHarness('phases-subgraph');
const say = (content: string): ScriptedModelConfig => ({ turns: [{ content }] });

describe('sub-graphs of a keyword graph', () => {
  test('Graph sub-graph: DataGatherer then Analyst (DATA READY) nested; the Analyst\'s RESEARCH COMPLETE routes to the Writer, who reads it', async () => {
    const b = team('sub-graph', parse(SUBGRAPH_GRAPH_YAML) as Record<string, unknown>, {
      DataGatherer: say('figures gathered\nDATA READY'),
      Analyst: say('analysis: churn rose in EMEA\nRESEARCH COMPLETE'),
      Writer: say('article from: {{message}}'),
    });
    const wf = await dev.start(b, 'why did churn rise?');
    const out = String(((await wf.result()) as AgentRunResult).output);
    expect(out).toMatch(/^article from: [\s\S]*figures gathered[\s\S]*analysis: churn rose in EMEA\nRESEARCH COMPLETE/);
    const members = await dev.members(wf.workflowId);
    expect(members.filter((m) => m.startsWith('research_phase-'))).toHaveLength(2);
    expect(members.filter((m) => /Writer$/.test(m))).toHaveLength(1);
  });

  test('MapReduce sub-graph: Splitter, Mapper per item, Reducer; the Reducer\'s ANALYSIS COMPLETE routes to the Writer, who reads it', async () => {
    const b = team('sub-mapreduce', parse(SUBGRAPH_MAPREDUCE_YAML) as Record<string, unknown>, {
      TaskSplitter: say('{"tasks": ["churn by region", "churn by plan"]}'),
      Analyst: say('analysis of: {{message}}'),
      Synthesizer: say('{{message}}\nANALYSIS COMPLETE'),
      Writer: say('report from: {{message}}'),
    });
    const wf = await dev.start(b, 'why did churn rise?');
    const res = (await wf.result()) as AgentRunResult;
    const out = String(res.output);
    expect(out.startsWith('report from: ')).toBe(true);
    // Each item mapped once, alone, in item order (the Mapper runs inline in the graph's workflow).
    expect(out).toMatch(/analysis of: [^\n]*churn by region[\s\S]*analysis of: [^\n]*churn by plan[\s\S]*ANALYSIS COMPLETE/);
    // The Reducer's input (echoed by the Synthesizer) opens with the parent's one `# Task` section, not two.
    expect(out).toMatch(/# Task\nwhy did churn rise\?[\s\S]*# Mapper outputs \(2 items, in item order\)/);
    expect(out).not.toContain('# Task\n# Task');
    const members = (await dev.members(wf.workflowId)).sort();
    expect(members.filter((m) => m.startsWith('parallel_analysis-'))).toEqual(expect.arrayContaining(['parallel_analysis-split-1-TaskSplitter', 'parallel_analysis-reduce-Synthesizer']));
    expect(members.filter((m) => /Writer$/.test(m))).toHaveLength(1);
  });

  test('ScatterGather sub-graph: three reviewers, the LeadReviewer\'s REVIEW COMPLETE routes to the Writer, who reads it', async () => {
    const b = team('sub-scatter', parse(SUBGRAPH_SCATTER_YAML) as Record<string, unknown>, {
      LegalReviewer: say('legal: fine'),
      TechnicalReviewer: say('technical: TLS 1.0'),
      BusinessReviewer: say('business: SLA low'),
      LeadReviewer: say('{{message}}\nREVIEW COMPLETE'),
      Writer: say('memo from: {{message}}'),
    });
    const wf = await dev.start(b, 'the vendor contract');
    const res = (await wf.result()) as AgentRunResult;
    const out = String(res.output);
    expect(out.startsWith('memo from: ')).toBe(true);
    for (const s of ['[Participant: LegalReviewer]', 'technical: TLS 1.0', 'business: SLA low', 'REVIEW COMPLETE']) expect(out).toContain(s);
    const members = (await dev.members(wf.workflowId)).sort();
    expect(members.filter((m) => m.startsWith('expert_review-'))).toEqual([
      'expert_review-gather-LeadReviewer', 'expert_review-scatter-1-LegalReviewer', 'expert_review-scatter-2-TechnicalReviewer', 'expert_review-scatter-3-BusinessReviewer',
    ]);
    expect(members.filter((m) => /Writer$/.test(m))).toHaveLength(1);
  });

  test('examples/strategies/scatter-gather expert-review-graph (the seed block unchanged) runs offline: the verdict routes to the Writer', async () => {
    const { bundle: compiled, diagnostics } = compileBundle(path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'scatter-gather'), 'expert-review-graph');
    expect(diagnostics).toEqual([]);
    const wf = await dev.start(compiled!, compiled!.agents['expert-review-graph'].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe('Memo: we recommend renegotiating the Acme Cloud contract (exit on SLA breach, TLS 1.2 or later, a higher SLA) before signing.');
    const members = (await dev.members(wf.workflowId)).sort();
    expect(members.filter((m) => m.startsWith('expert_review-'))).toEqual([
      'expert_review-gather-LeadReviewer', 'expert_review-scatter-1-LegalReviewer', 'expert_review-scatter-2-TechnicalReviewer', 'expert_review-scatter-3-BusinessReviewer',
    ]);
  });

  test('examples/strategies/map-reduce analysis-graph (the seed block unchanged) runs offline: the combined notes route to the Writer', async () => {
    const { bundle: compiled, diagnostics } = compileBundle(path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'map-reduce'), 'analysis-graph');
    expect(diagnostics).toEqual([]);
    const wf = await dev.start(compiled!, compiled!.agents['analysis-graph'].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe('v2.4 release notes (published)\n- New: retry budget\n- New: dark mode\n- New: CSV export');
    const members = (await dev.members(wf.workflowId)).sort();
    expect(members.filter((m) => m.startsWith('parallel_analysis-'))).toEqual(['parallel_analysis-reduce-Synthesizer', 'parallel_analysis-split-1-TaskSplitter']);
  });

  test('sub-graphs as Parallel fan-out branches: a Graph and a ScatterGather branch beside an agent branch, each on its own copy of the conversation; their terminal outputs are merged for the join', async () => {
    const b = team('sub-branches', {
      Selection: {
        Type: 'graph',
        Graph: {
          EntryNode: 'coord',
          Nodes: [
            { Id: 'coord', Agent: 'Coordinator' },
            { Id: 'quick', Agent: 'Quick', Parallel: true },
            { Id: 'deep', SubGraphId: 'research', Parallel: true },
            { Id: 'panel', SubGraphId: 'reviewers', Parallel: true },
            { Id: 'synth', Agent: 'Synthesizer', Terminal: true },
          ],
          Edges: [
            { From: 'coord', To: 'quick', Keyword: 'ANALYZE' }, { From: 'coord', To: 'deep', Keyword: 'ANALYZE' }, { From: 'coord', To: 'panel', Keyword: 'ANALYZE' },
            { From: 'quick', To: 'synth' }, { From: 'deep', To: 'synth' }, { From: 'panel', To: 'synth' },
          ],
          SubGraphs: {
            research: { Graph: { EntryNode: 'gather', Nodes: [{ Id: 'gather', Agent: 'Gatherer' }, { Id: 'analyze', Agent: 'Analyst', Terminal: true }], Edges: [{ From: 'gather', To: 'analyze', Keyword: 'DATA READY' }] } },
            reviewers: { ScatterGather: { Participants: ['Legal', 'Tech'], Synthesizer: 'Lead' } },
          },
        },
      },
    }, {
      Coordinator: say('three views, please\nANALYZE'),
      Quick: say('quick take: renew'),
      // Each branch sees the conversation as it was at the fan-out, never another branch's work.
      Gatherer: { turns: [{ content: 'gathered from: {{message}}\nDATA READY' }] },
      Analyst: { turns: [{ content: 'analyst read: {{message}}' }] },
      Legal: say('legal: fine'),
      Tech: say('tech: TLS 1.0'),
      Lead: { turns: [{ content: 'lead verdict over: {{message}}' }] },
      Synthesizer: { turns: [{ content: '{{message}}' }] },
    });
    const wf = await dev.start(b, 'assess the vendor');
    const joined = String(((await wf.result()) as AgentRunResult).output);
    const merged = joined.slice(joined.indexOf('[Merged output of quick, deep, panel (union)]'));
    expect(merged.startsWith('[Merged output of quick, deep, panel (union)]\n[Branch quick: Quick]\nquick take: renew\n\n[Branch deep: Analyst]\nanalyst read: ')).toBe(true);
    const deep = merged.slice(merged.indexOf('[Branch deep: Analyst]'), merged.indexOf('[Branch panel: Lead]'));
    expect(deep).toContain('gathered from: ');
    expect(deep).toContain('three views, please');
    expect(deep).not.toContain('quick take');
    expect(deep).not.toContain('legal: fine');
    const panel = merged.slice(merged.indexOf('[Branch panel: Lead]'));
    expect(panel).toContain('[Participant: Legal]');
    expect(panel).toContain('tech: TLS 1.0');
    expect(panel).not.toContain('quick take');
    expect(panel).not.toContain('DATA READY');
    expect(await dev.turns(wf.workflowId)).toEqual([
      'turn-1-Coordinator', 'turn-2-branch-0-quick', 'turn-2-branch-1-deep-turn-2-Gatherer', 'turn-2-branch-1-deep-turn-3-Analyst',
      'turn-2-branch-2-panel-gather-Lead', 'turn-2-branch-2-panel-scatter-1-Legal', 'turn-2-branch-2-panel-scatter-2-Tech', 'turn-6-Synthesizer',
    ]);
  });

  test('every sub-graph run of this file replays without nondeterminism', async () => {
    const outcomes = await dev.replayStarted();
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    expect(outcomes).toHaveLength(dev.started.length);
  });
});
