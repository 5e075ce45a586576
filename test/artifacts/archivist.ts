/** The agent the tenant artifact-store tests run: its tool call and answer repeat `input.q`, and it saves every artifact (standard retention) to the tenant's store. */
import type { CompiledBundle } from '../../src/compiled/types';
import type { CompiledTenant } from '../../src/compiled/types';
import { builtin, compileAgent, Definitions, scripted } from '../helpers/definitions';

/** The archivist compiled from its definitions in a registry whose tenant.md says `tenant` (its artifact store and secret references). */
export function archivistBundle(tenant: CompiledTenant): CompiledBundle {
  return compileAgent({
    agent_id: 'archivist',
    model: scripted({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'note {{input.q}}' } }] }, { content: { answer: 'done {{input.q}}' } }] }),
    tools: [builtin('echo')],
    front: {
      interface: { input: { schema: { type: 'object', properties: { q: { type: 'string' } } } }, output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } },
      artifacts: { enabled: true, save_input: true, save_output: true, save_intermediate: true, retention_class: 'standard' },
    },
  }, new Definitions().tenant({ ...tenant })).bundle;
}
