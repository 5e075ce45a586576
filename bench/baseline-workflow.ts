/**
 * Benchmark baseline (bench/runtime.ts, bundled through bench/workflows.ts; not in the production bundle): a hand-written minimal workflow making the same activity
 * calls as an agf.react run with one tool call per turn, carrying the whole conversation in each
 * model call's input the naive way (so its history bytes per turn grow with the conversation).
 */
import { proxyActivities } from '@temporalio/workflow';

export interface BaselineActivities {
  baselineModel(conversation: { role: string; content: string }[], turn: number): Promise<{ content?: string; tool?: { name: string; args: Record<string, unknown> } }>;
  baselineTool(name: string, args: Record<string, unknown>): Promise<string>;
}

const { baselineModel, baselineTool } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1 minute' });

export async function benchBaselineWorkflow(prompt: string): Promise<string> {
  const conversation: { role: string; content: string }[] = [{ role: 'user', content: prompt }];
  for (let turn = 0; ; turn++) {
    const reply = await baselineModel(conversation, turn);
    if (!reply.tool) return reply.content ?? '';
    conversation.push({ role: 'assistant', content: JSON.stringify(reply.tool) });
    const result = await baselineTool(reply.tool.name, reply.tool.args);
    conversation.push({ role: 'tool', content: result });
  }
}
