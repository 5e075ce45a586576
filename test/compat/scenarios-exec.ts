/**
 * Compat scenario for seed 003's execution loop (runtime.execution_loop: dependencies, issue 10):
 * a reply whose calls stream into the run (callStreamed signals in history) — one written to State,
 * an independent one, and one that depends on the first and waits for approval — recorded while it
 * waits, then replaced at approval with another tool on the code under test. No patch (new
 * configuration only); `since` skips it on a base before streaming existed.
 */
import { agent as reactAgent, builtinTool, scriptedModel } from '../runtime/builders';
import { bundle } from '../orchestration/builders';
import type { Scenario } from './scenarios';
import { WIRE } from './tree';

export function execScenarios(): Scenario[] {
  return [{
    name: 'exec-streamed-mid-approval',
    waitsAt: 'dependencies loop: streamed calls, `save` (depends on `price`) waiting for approval while `note` ran',
    patches: [],
    since: '3120afd',
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = reactAgent({
        agent_id: 'c-exec',
        model: scriptedModel({
          turns: [
            {
              content: 'pricing, noting, then saving',
              tool_calls: [
                { id: 'price', name: 'arithmetic', arguments: { a: 4, b: 30, op: 'mul', _outputPath: '$.state.price' } },
                { id: 'note', name: 'echo', arguments: { text: 'noted' } },
                { id: 'save', name: 'save', arguments: { text: 'order', _dependsOn: 'price', _outputPath: '$.state.saved' } },
              ],
            },
            { content: 'done: {{last_tool_result}}' },
          ],
        }),
        tools: [builtinTool('arithmetic'), builtinTool('echo'), builtinTool('echo', { tool_id: 'save', approval_required: true })],
        runtime: { execution_loop: 'dependencies', timeout_seconds: 3600 },
      });
      return bundle('c-exec', [a]);
    },
    input: 'plan it',
    ready: (t) => (t[0]?.status?.pending_approvals.length ?? 0) === 1,
    async resume(client, rootId) {
      await client.workflow.getHandle(rootId).executeUpdate(WIRE.approve, { args: [{ call_id: 'save', tool: 'echo', args: { text: 'saved by hand' }, by: 'compat-guard' }] });
    },
    expected: 'done: saved by hand',
  }];
}
