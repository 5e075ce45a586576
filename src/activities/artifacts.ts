/**
 * Seed 001 artifacts, written through the shared store (folder or PostgreSQL) as a run ends, and
 * purged when expired. `restricted` artifacts are sealed with AES-256-GCM under the codec key
 * (LOOM_CODEC_KEY / LOOM_CODEC_KEY_FILE) before they reach the store; without a key the write fails
 * with what to configure rather than store them in the clear. Writes overwrite by (run, name), so a
 * retried activity leaves one copy.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { BlobRef } from '../shared/contract';
import type { BlobStore } from '../store/types';
import { codecKeysFromEnv } from '../codec/keys';
import { seal } from '../codec/encrypted-store';
import type { BundleCache } from './agent-loader';
import type { MessageStore } from './message-store';
import { expiresAt, planArtifacts, retentionDaysFromEnv } from '../runtime/artifacts';

export interface SaveRunArtifactsInput {
  bundle: BlobRef;
  agent_id: string;
  /** The run's workflow id: what `loom artifacts RUN_ID` takes. */
  run_id: string;
  /** The conversation head at the end of the run (the input and the tool calls are read from it). */
  head: BlobRef | null;
  output: unknown;
}

export function createArtifactActivities(deps: { store: BlobStore; bundles: BundleCache; messages: MessageStore }) {
  return {
    async saveRunArtifacts(inp: SaveRunArtifactsInput): Promise<{ saved: string[] }> {
      const { agent } = await deps.bundles.agent(inp.bundle, inp.agent_id);
      const cls = agent.artifacts.retention_class;
      const planned = planArtifacts(agent.artifacts, await deps.messages.conversation(inp.head), inp.output);
      if (!planned.length || cls === 'ephemeral') return { saved: [] };
      const keys = codecKeysFromEnv();
      if (cls === 'restricted' && !keys.encodeWith) {
        throw ApplicationFailure.nonRetryable(
          `agent ${agent.agent_id} keeps restricted artifacts, which are stored encrypted, but this worker has no encryption key: set LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE (and not LOOM_ENCRYPTION=off)`,
          'ArtifactsNotProtected',
        );
      }
      const now = new Date();
      const expires = expiresAt(cls, now, retentionDaysFromEnv(process.env)).toISOString();
      for (const p of planned) {
        const plain = Buffer.from(p.content, 'utf8');
        await deps.store.putArtifact({
          run_id: inp.run_id,
          name: p.name,
          kind: p.kind,
          retention_class: cls,
          agent_id: agent.agent_id,
          created_at: now.toISOString(),
          expires_at: expires,
          bytes: plain.length,
          content: cls === 'restricted' ? seal(plain, keys) : plain,
        });
      }
      return { saved: planned.map((p) => p.name) };
    },

    /** The purge workflow's step: delete every artifact past its expiry. */
    async purgeExpiredArtifacts(): Promise<{ purged: number; store: string }> {
      return { purged: await deps.store.purgeArtifacts(new Date()), store: deps.store.location };
    },
  };
}
