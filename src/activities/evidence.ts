/**
 * Activities that gather what a strategies run's validators, contracts and HandoffContext read,
 * from the run's workspace only (never from the model's text): the workspace every member shares,
 * one agent turn's evidence (its real write_file and shell records from the evidence log, the whole
 * change log, the artifact files the checks read) and the HandoffContext block of a transition.
 * The checks themselves are pure (src/strategies/evidence.ts, handoff.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { HandoffContextEntry, TurnEvidence } from '../strategies/types';
import { handoffFiles, renderHandoffContext } from '../strategies/handoff';
import { changeRecords, shellRecords } from './evidence-log';
import { workspaceRoot } from './file-tools';

/** Bytes of one artifact file carried into the workflow (larger files are cut, so their JSON fails to parse). */
export const MAX_ARTIFACT_BYTES = 64 * 1024;

/** Read a workspace file, or null when it is absent (or not a regular file, or outside the workspace). */
async function readArtifact(root: string, rel: string): Promise<string | null> {
  const abs = path.resolve(root, rel);
  if (abs !== root && !abs.startsWith(root + path.sep)) return null;
  try {
    const real = await fs.promises.realpath(abs);
    if (!real.startsWith(root + path.sep)) return null;
    const fh = await fs.promises.open(real, 'r');
    try {
      const st = await fh.stat();
      if (!st.isFile()) return null;
      const buf = Buffer.alloc(Math.min(st.size, MAX_ARTIFACT_BYTES));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

async function readArtifacts(root: string, files: readonly string[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const f of files) out[f] = await readArtifact(root, f);
  return out;
}

/** The role part of a member workflow id (`<run>/turn-3-Developer` → `turn-3-Developer`). */
const roleOf = (workflowId: string): string => workflowId.slice(workflowId.lastIndexOf('/') + 1);

export function createEvidenceActivities() {
  return {
    /** The run's workspace as a real absolute path (created): every member's file and shell tools use it. */
    async strategyWorkspace(inp: { workflow_id: string; workspace?: string }): Promise<string> {
      const root = workspaceRoot({ workflowId: inp.workflow_id, workspace: inp.workspace });
      await fs.promises.mkdir(root, { recursive: true });
      return fs.promises.realpath(root);
    },

    /** What one agent turn (member run `member_workflow_id`) did, for validators and contracts. */
    async collectTurnEvidence(inp: { workspace: string; member_workflow_id: string; files: string[] }): Promise<TurnEvidence> {
      const root = inp.workspace;
      const changes = await changeRecords(root);
      const shell = (await shellRecords(root)).filter((r) => r.workflow_id === inp.member_workflow_id);
      return {
        writes: [...new Set(changes.filter((c) => c.workflow_id === inp.member_workflow_id).map((c) => c.path))],
        changes: [...new Set(changes.map((c) => c.path))],
        shell: shell.map((r) => ({ command: r.command, exitCode: r.exit_code, outputTail: r.output_tail.slice(-500) })),
        files: await readArtifacts(root, inp.files),
      };
    },

    /** The HandoffContext block for `to_agent` (fuseraft: injected when the transition fires); `for: 'context'`: an agent Context spec's sources. */
    async handoffContext(inp: { workspace: string; entries: HandoffContextEntry[]; to_agent: string; for?: 'handoff' | 'context' }): Promise<string> {
      const root = inp.workspace;
      const changes = (await changeRecords(root)).map((c) => ({ path: c.path, mode: c.mode, by: roleOf(c.workflow_id), at: c.at }));
      const files = await readArtifacts(root, handoffFiles(inp.entries));
      return renderHandoffContext(inp.entries, { files, changes }, inp.to_agent, inp.for === 'context' ? 'Context sources' : 'Handoff context');
    },
  };
}

export type EvidenceActivities = ReturnType<typeof createEvidenceActivities>;
