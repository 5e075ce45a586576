/**
 * The agf.react agent the turn benchmarks run (bench:runtime, bench:throughput): a zero-latency
 * scripted model that calls the builtin `echo` tool once per turn and answers on turn `turns`, and
 * the activities of the hand-written baseline workflow (bench/baseline-workflow.ts) doing the same
 * calls.
 */
import type { CompiledAgent } from '../src/compiled/types';

export const TOOL_TEXT = 'a short tool argument';

export function benchAgent(turns: number): CompiledAgent {
  return {
    agent_id: 'bench-react',
    version: '1.0.0',
    spec_version: '1.0',
    status: 'active',
    meta: { name: 'bench' },
    instructions: '# Purpose\nBenchmark.',
    sections: [],
    runtime: {
      model: {
        model_id: 'scripted-bench',
        version: '1',
        status: 'active',
        provider: 'scripted',
        scripted: {
          rules: [{ when: { turn: turns }, reply: { content: 'done' } }],
          turns: [{ tool_calls: [{ name: 'echo', arguments: { text: TOOL_TEXT } }] }],
        },
      },
    },
    interface: { input: { schema: {}, examples: [] }, output: { schema: {} } },
    tools: {
      tool_choice: 'auto',
      refs: [
        {
          tool_id: 'echo',
          version: '1',
          status: 'active',
          description: 'echo',
          kind: 'builtin',
          input_schema: { type: 'object', properties: { text: { type: 'string' } } },
          approval_required: false,
          sensitive_fields: [],
          side_effects: false,
          builtin: { name: 'echo' },
        },
      ],
    },
    knowledge: { refs: [] },
    memory: { mode: 'none', read_collections: [], write_collections: [] },
    artifacts: { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'standard' },
    policies: { pii_redaction: false, allow_external_http: false, require_human_approval: false, blocked_content: [], allowed_connectors: [], audit_level: 'standard' },
    guardrails: { input: [], tool_input: [], tool_output: [], output: [], tool_calls: { require_user_confirmation_for: [], block_tools_on_input_fail: false } },
    orchestration: { can_delegate: false, allowed_delegates: [], can_be_invoked_as_tool: false, escalation: [] },
    execution_policy: { id: 'agf.react', config: { max_steps: 100000 } },
    local_agents: [],
    content_hash: 'bench',
  };
}

export const baselineActivities = (turns: number) => ({
  async baselineModel(conversation: { role: string; content: string }[], turn: number) {
    void conversation;
    return turn >= turns ? { content: 'done' } : { tool: { name: 'echo', args: { text: TOOL_TEXT } } };
  },
  async baselineTool(_name: string, args: Record<string, unknown>) {
    return String(args.text);
  },
});
