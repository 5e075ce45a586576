/** The agent the encryption tests run: its tool call and its answer repeat the input's `question`, so a phrase in the input reaches every payload. */
import type { CompiledBundle } from '../../src/compiled/types';
import { builtin, compileAgent, definition, scripted } from '../helpers/definitions';

/** The vault agent compiled from its definitions (a scripted model, the echo builtin, an object output). */
export function vaultBundle(agentId = 'vault'): CompiledBundle {
  return compileAgent({
    agent_id: agentId,
    model: scripted({
      turns: [
        { tool_calls: [{ name: 'echo', arguments: { text: 'remember {{input.question}}' } }] },
        { content: { answer: 'stored: {{input.question}}' } },
      ],
    }),
    tools: [builtin('echo')],
    front: {
      interface: {
        input: { schema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] }, examples: [{ question: 'hi' }] },
        output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
      },
    },
  }).bundle;
}

/**
 * The `shape` agent: its answer quotes the input's `code`, and an output guardrail (the builtin
 * json-schema check, blocking) refuses it, so the workflow raises a failure that quotes the answer.
 */
export function shapeBundle(answer: string, schema: Record<string, unknown>): CompiledBundle {
  return compileAgent({
    agent_id: 'shape',
    model: scripted({ turns: [{ content: answer }] }),
    others: [definition('guardrail', {
      guardrail_id: 'answer-shape', version: '1.0.0', status: 'active', description: 'The answer must be a JSON object.',
      behaviour: { result_type: 'score' }, provider: { type: 'builtin', name: 'json-schema', config: { schema } },
    })],
    front: {
      interface: { input: { schema: { type: 'object', properties: { code: { type: 'string' } } }, examples: [{ code: 'Q1' }] }, output: { schema: { type: 'string' } } },
      guardrails: { output: [{ ref: 'answer-shape', on_fail: 'block', severity_threshold: 5 }] },
    },
  }).bundle;
}
