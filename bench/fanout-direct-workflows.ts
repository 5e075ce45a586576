/** Bench baseline: the same fan-out hand-written directly on Temporal activities (no agents, no children). */
import { proxyActivities } from '@temporalio/workflow';

const { zeroLatencyModel } = proxyActivities<{ zeroLatencyModel(item: unknown): Promise<string> }>({ startToCloseTimeout: '60s' });

export async function directFanoutWorkflow(items: unknown[], concurrency: number): Promise<string[]> {
  const out = new Array<string>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await zeroLatencyModel(items[i]);
      }
    }),
  );
  return out;
}
