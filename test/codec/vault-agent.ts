/** The agent the encryption tests run: its tool call and its answer repeat the input's `question`, so a phrase in the input reaches every payload. */
import type { CompiledAgent } from '../../src/compiled/types';
import { agent, builtinTool, scriptedModel } from '../runtime/builders';

export function vaultAgent(agentId = 'vault'): CompiledAgent {
  return agent({
    agent_id: agentId,
    model: scriptedModel({
      turns: [
        { tool_calls: [{ name: 'echo', arguments: { text: 'remember {{input.question}}' } }] },
        { content: { answer: 'stored: {{input.question}}' } },
      ],
    }),
    tools: [builtinTool('echo')],
    output_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  });
}
