/**
 * fuseraft's agent Context spec on a real Temporal dev server: a Writer whose `Agents` entry declares
 * `Context: [own_history, file:brief.md]` reads its sources and its own earlier turns, never the
 * Reviewer's words, while the Reviewer (no Context spec) reads the shared conversation. The Writer
 * echoes its input, so the run's output is exactly what the Writer was given.
 */
import type { ScriptedModelConfig } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { answers } from '../orchestration/builders';
import { recordingHarness } from './dev-server';
import { scriptedTeam } from './team';

const dev = recordingHarness('strat-context');
const echo: ScriptedModelConfig = { turns: [{ content: '{{message}}' }] };

test('an agent with a Context spec sees its sources and its own turns only; the others see the shared conversation', async () => {
  const config = {
    Agents: [{ Name: 'Writer', Context: [{ Source: 'own_history' }, { Source: 'file:brief.md', Label: 'Brief' }] }, 'Reviewer'],
    Selection: { Type: 'roundrobin' },
    Termination: { Type: 'maxiterations', MaxIterations: 3 },
  };
  const wf = await dev.start(scriptedTeam('ctx-writer', config, { Writer: echo, Reviewer: answers('REVIEWER SAYS: make it shorter.') }), 'write a haiku about rain');
  const out = String(((await wf.result()) as AgentRunResult).output);
  expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Writer', 'turn-2-Reviewer', 'turn-3-Writer']);
  // The third turn's input: the task, its sources read from the workspace, its first turn (an echo of
  // its own first input), nothing the Reviewer said and no shared conversation.
  expect(out).toMatch(/^# Task\nwrite a haiku about rain\n\n# Your context sources\n\[Context sources for Writer\]\n## Brief\n\(brief\.md does not exist\)\n\n# Your earlier turns\n\n\[Writer\]\n# Task\nwrite a haiku about rain/);
  expect(out).not.toContain('REVIEWER SAYS');
  expect(out).not.toContain('# Conversation so far');
});

test('an agent without a Context spec still reads the shared conversation', async () => {
  const config = { Agents: [{ Name: 'Writer', Context: [{ Source: 'own_history:1' }] }, 'Reviewer'], Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 2 } };
  const wf = await dev.start(scriptedTeam('ctx-reviewer', config, { Writer: answers('WRITER DRAFT: rain on tin'), Reviewer: echo }), 'write a haiku about rain');
  const out = String(((await wf.result()) as AgentRunResult).output);
  expect(out).toMatch(/# Conversation so far\n\n\[Writer\]\nWRITER DRAFT: rain on tin/);
});

// Last in the file: every run above replays deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(2);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
}, 120_000);
