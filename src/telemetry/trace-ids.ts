/**
 * Deterministic trace and span ids for an agent run (decision 246): the trace id and the
 * `agent.run` span id are hashes of the workflow id and run id, so every activity of the run can
 * parent its span to `agent.run` from its own activity info, and the workflow needs no command,
 * marker or header to carry them (recorded histories replay unchanged). Pure: no Temporal import.
 */
import { createHash } from 'crypto';

function hex(kind: string, workflowId: string, runId: string, chars: number): string {
  const h = createHash('sha256').update(`agentloom:${kind}:${workflowId}\n${runId}`).digest('hex').slice(0, chars);
  // An all-zero id is invalid in W3C Trace Context; a sha256 prefix of zeros is practically impossible, but stay valid.
  return /^0+$/.test(h) ? `${h.slice(0, -1)}1` : h;
}

/** The 32-hex-digit trace id of one workflow run (each continue-as-new segment is its own trace). */
export function runTraceId(workflowId: string, runId: string): string {
  return hex('trace', workflowId, runId, 32);
}

/** The 16-hex-digit span id of the run's `agent.run` span. */
export function runSpanId(workflowId: string, runId: string): string {
  return hex('run-span', workflowId, runId, 16);
}
