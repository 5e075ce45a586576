/**
 * `loom respond ROOT REF` and `loom inbox --watch` as a user runs them (child processes of
 * `node bin/loom.js`): a human-queue escalation three levels deep shows up in a watching inbox,
 * is answered from the root with the command the inbox printed, and the watch prints it gone;
 * `--queue Q` alone finds the one run of the tree waiting on Q, and a queue nobody waits on is
 * refused with what does wait.
 */
import { randomUUID } from 'crypto';
import type { CompiledBundle } from '../../src/compiled/types';
import type { RunAgentInput } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { agent, bundle, locals, store } from '../orchestration/builders';
import { CliHarness, startCliHarness, statusWhen, until, useBuiltCli } from './harness';

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => { h = await startCliHarness('inbox-watch'); });
afterAll(async () => h?.close());

/** root -> middle (sequential) -> desk (react) that escalates to human queue 'ops'. */
function deep(tag: string): CompiledBundle {
  return bundle(`watch-root-${tag}`, [
    agent({ id: `watch-root-${tag}`, policy: { id: 'agf.sequential', config: { steps: [{ agent: 'middle' }], output_from: 'middle' } }, local_agents: locals('middle') }),
    agent({ id: 'middle', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'watch-desk' }], output_from: 'watch-desk' } }, local_agents: locals('watch-desk') }),
    agent({
      id: 'watch-desk',
      model: { turns: [{ tool_calls: [{ id: 'h1', name: 'escalate_to_human', arguments: { reason: 'needs a person' } }] }] },
      escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'ops' } }],
      max_turns: 3,
    }),
  ]);
}

async function start(b: CompiledBundle): Promise<string> {
  const root = b.agents[b.root];
  const args: RunAgentInput = { bundle: await store(b), agent_id: b.root, input: 'go' };
  const id = `watch-${b.root}-${randomUUID().slice(0, 8)}`;
  await h.t.client.workflow.start(workflowTypeFor(root)!, {
    taskQueue: h.taskQueue, workflowId: id, args: [args],
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [b.root], [SEARCH_ATTRIBUTES.pattern]: [patternOf(root)], [SEARCH_ATTRIBUTES.status]: ['running'] },
  });
  return id;
}

const REF = 'step-1-middle/step-1-watch-desk:ops';

test('inbox --watch prints the escalation when it appears and when it is answered from the root with the printed command; Ctrl-C ends it with 0', async () => {
  const watcher = h.spawnLoom(['inbox', '--watch', '--interval', '1', '--agent', 'watch-desk']);
  await until('the first refresh', () => (watcher.out().includes('(watching; Ctrl-C to stop)') ? true : undefined));
  expect(watcher.out()).toContain('nothing is waiting on a human');

  const id = await start(deep('a'));
  const added = await until('the watch to print the escalation', () => watcher.out().split('\n').find((l) => l.startsWith(`+ ${id}  ${REF}  waited `)));
  expect(added).toBeTruthy();
  const printed = `loom respond ${id} ${REF} --output JSON`;
  expect(watcher.out()).toContain(`    ${printed}\n`);

  const answered = await h.loom(['respond', id, REF, '--output', JSON.stringify('handled by a person')]);
  expect(answered).toMatchObject({ code: 0, out: `response delivered to ${id} (in ${id}/step-1-middle/step-1-watch-desk) on 'ops'\n` });
  await until('the watch to print it gone', () => (watcher.out().includes(`- ${id}  ${REF}  no longer waiting\n`) ? true : undefined));
  expect(await h.handle(id).result()).toMatchObject({ output: 'handled by a person' });
  // Only changes after the first listing: over every refresh in between, the entry was printed once.
  expect(watcher.out().split(`+ ${id}`).length).toBe(2);

  watcher.child.kill('SIGINT');
  expect((await watcher.done).code).toBe(0);
  // The suite shares one namespace: a run another test file left open (its worker gone) may be named
  // as not answering. Nothing else may reach stderr, and never one of this test's own runs.
  const foreign = /^loom inbox: \d+ run tree\(s\) did not answer the status query within \d+ s .*: (.+)$/;
  const lines = watcher.err().split('\n').filter((l) => l !== '');
  expect(lines.filter((l) => !foreign.test(l))).toEqual([]);
  expect(lines.filter((l) => l.includes(id))).toEqual([]);
}, 120_000);

test('loom respond ROOT --queue Q finds the member waiting on Q; a queue nobody waits on is refused naming what waits', async () => {
  const id = await start(deep('b'));
  await statusWhen(h, id, 'the escalation at the root', (s) => (s.pending_decisions ?? []).some((d) => d.kind === 'escalation'));
  const wrong = await h.loom(['respond', id, '--queue', 'legal', '--output', '1']);
  expect(wrong.code).toBe(1);
  expect(wrong.err).toBe(`loom respond: refused: no escalation waiting on 'legal' in the tree of ${id}; waiting: ${REF}\n`);
  const mismatch = await h.loom(['respond', id, REF, '--queue', 'legal', '--close']);
  expect(mismatch).toMatchObject({ code: 1, err: `loom respond: refused: ${REF} waits on queue 'ops', not 'legal'\n` });
  const closed = await h.loom(['respond', id, '--queue', 'ops', '--close', '--reason', 'not ours']);
  expect(closed).toMatchObject({ code: 0, out: `escalation on 'ops' closed for ${id} (in ${id}/step-1-middle/step-1-watch-desk)\n` });
  await expect(h.handle(id).result()).rejects.toThrow();
}, 120_000);
