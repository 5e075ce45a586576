/**
 * A user's own workflows module, as a team that adopts Agentloom has one: a tiny workflow calling
 * the user's own activity. test/library/plugin.test.ts runs it beside Agentloom's workflows on one
 * task queue through AgentloomPlugin.
 */
import { proxyActivities } from '@temporalio/workflow';

const { shout } = proxyActivities<{ shout(text: string): Promise<string> }>({ startToCloseTimeout: '10s' });

export async function greetWorkflow(name: string): Promise<string> {
  return shout(`hello ${name}`);
}
