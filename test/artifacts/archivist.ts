/** The agent the tenant artifact-store tests run: its tool call and answer repeat `input.q`, and it saves every artifact (standard retention) to the tenant's store. */
import type { CompiledAgent } from '../../src/compiled/types';
import type { CompiledTenant } from '../../src/compiled/types';
import { agent, builtinTool, scriptedModel } from '../runtime/builders';

export function archivistAgent(tenant: CompiledTenant): CompiledAgent {
  return {
    ...agent({
      agent_id: 'archivist',
      model: scriptedModel({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'note {{input.q}}' } }] }, { content: { answer: 'done {{input.q}}' } }] }),
      tools: [builtinTool('echo')],
      output_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    }),
    artifacts: { enabled: true, save_input: true, save_output: true, save_intermediate: true, retention_class: 'standard' },
    tenant,
  };
}
