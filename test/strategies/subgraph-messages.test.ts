/**
 * fuseraft's "all its messages are streamed to the parent session" for MapReduce and ScatterGather
 * sub-graphs of a keyword graph, on a real Temporal dev server: the seed's blocks pasted unchanged;
 * the nested strategy's messages (every Splitter reply and the map phase; every participant's
 * reply) enter the parent's shared history before the terminal reply, so the next node's agent
 * reads them although the terminal reply does not repeat them. The Writer echoes its input.
 */
import { parse } from 'yaml';
import type { ScriptedModelConfig } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { SUBGRAPH_MAPREDUCE_YAML, SUBGRAPH_SCATTER_YAML } from './seed-examples';
import { recordingHarness } from './dev-server';
import { scriptedTeam as team } from './team';

const dev = recordingHarness('subgraph-messages');
const say = (content: string): ScriptedModelConfig => ({ turns: [{ content }] });

test('MapReduce sub-graph: the Splitter\'s reply and the map phase reach the parent conversation before the Reducer\'s turn', async () => {
  const b = team('msgs-mapreduce', parse(SUBGRAPH_MAPREDUCE_YAML) as Record<string, unknown>, {
    TaskSplitter: say('{"tasks": ["churn by region", "churn by plan"]}'),
    Analyst: say('MAPPED'),
    Synthesizer: say('EMEA drove churn.\nANALYSIS COMPLETE'),
    Writer: say('report from: {{message}}'),
  });
  const wf = await dev.start(b, 'why did churn rise?');
  const out = String(((await wf.result()) as AgentRunResult).output);
  expect(out).toContain('[TaskSplitter]\n{"tasks": ["churn by region", "churn by plan"]}\n\n[Analyst]\n[Map phase: 2 item(s) mapped by Analyst, in item order]\n\n[Item 1]\nMAPPED\n\n[Item 2]\nMAPPED\n\n[Synthesizer]\nEMEA drove churn.\nANALYSIS COMPLETE');
});

test('ScatterGather sub-graph: every participant\'s reply reaches the parent conversation, in Participants order, before the synthesis', async () => {
  const b = team('msgs-scatter', parse(SUBGRAPH_SCATTER_YAML) as Record<string, unknown>, {
    LegalReviewer: say('legal: fine'),
    TechnicalReviewer: say('technical: TLS 1.0'),
    BusinessReviewer: say('business: SLA low'),
    LeadReviewer: say('Renegotiate.\nREVIEW COMPLETE'),
    Writer: say('memo from: {{message}}'),
  });
  const wf = await dev.start(b, 'the vendor contract');
  const out = String(((await wf.result()) as AgentRunResult).output);
  expect(out).toContain('[LegalReviewer]\nlegal: fine\n\n[TechnicalReviewer]\ntechnical: TLS 1.0\n\n[BusinessReviewer]\nbusiness: SLA low\n\n[LeadReviewer]\nRenegotiate.\nREVIEW COMPLETE');
});

test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(2);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
}, 120_000);
