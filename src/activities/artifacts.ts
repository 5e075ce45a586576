/**
 * The Agent Definition Specification's artifacts, written through the shared store (folder or PostgreSQL) as a run ends, and
 * purged when expired. `restricted` artifacts are sealed with AES-256-GCM under the codec key
 * (LOOM_CODEC_KEY / LOOM_CODEC_KEY_FILE) before they reach the store; without a key the write fails
 * with what to configure rather than store them in the clear. Writes overwrite by (run, name), so a
 * retried activity leaves one copy. A tenant.md `artifact_store` of type file/postgres sends them to
 * that store instead (routed: the shared store records where, src/store/artifact-route.ts), and
 * `encryption: aes-256-gcm` seals every class like `restricted`.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { BlobRef } from '../shared/contract';
import type { BlobStore } from '../store/types';
import { ArtifactRoutingStore, artifactTarget, purgeEverywhere, recordRoute } from '../store/artifact-route';
import { openRoute } from '../store/open';
import { codecKeysFromEnv } from '../codec/keys';
import { seal } from '../store/encrypted';
import type { BundleCache } from './agent-loader';
import type { MessageStore } from './message-store';
import { expiresAt, planArtifacts, retentionDaysFromEnv } from '../runtime/artifacts';
import { redactJson } from '../governance/pii';
import { sweepEphemeralOutputs } from './ephemeral';

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
      // policies.pii_redaction: every artifact is redacted here, as the audit log is (the Agent Format: "any artifact stored for this run").
      const planned = planArtifacts(agent.artifacts, await deps.messages.conversation(inp.head), inp.output, agent.policies.pii_redaction === true ? { redact: (v) => redactJson(v).value } : {});
      if (!planned.length || cls === 'ephemeral') return { saved: [] };
      const keys = codecKeysFromEnv();
      const target = artifactTarget(agent.tenant);
      const sealed = cls === 'restricted' || target.sealAll;
      if (sealed && !keys.encodeWith) {
        const why = cls === 'restricted' ? 'keeps restricted artifacts, which are stored encrypted' : "writes artifacts to a store its tenant.md declares with `encryption: aes-256-gcm`";
        throw ApplicationFailure.nonRetryable(
          `agent ${agent.agent_id} ${why}, but this worker has no encryption key: set LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE (and not LOOM_ENCRYPTION=off)`,
          'ArtifactsNotProtected',
        );
      }
      let store = deps.store;
      if (target.route) {
        // Where they go is written first, so the purge and `loom artifacts` find them even if this attempt dies midway.
        const shared = deps.store instanceof ArtifactRoutingStore ? deps.store.inner : deps.store;
        store = openRoute(target.route);
        await recordRoute(shared, inp.run_id, target.route);
      }
      const now = new Date();
      const expires = expiresAt(cls, now, retentionDaysFromEnv(process.env)).toISOString();
      for (const p of planned) {
        const plain = Buffer.from(p.content, 'utf8');
        await store.putArtifact({
          run_id: inp.run_id,
          name: p.name,
          kind: p.kind,
          retention_class: cls,
          agent_id: agent.agent_id,
          created_at: now.toISOString(),
          expires_at: expires,
          bytes: plain.length,
          content: sealed ? seal(plain, keys) : plain,
        });
      }
      return { saved: planned.map((p) => p.name) };
    },

    /** The purge workflow's step: delete every artifact past its expiry, in the shared store and every tenant store it routed to. */
    async purgeExpiredArtifacts(): Promise<{ purged: number; store: string; ephemeral_outputs: number }> {
      const shared = deps.store instanceof ArtifactRoutingStore ? deps.store.inner : deps.store;
      const now = new Date();
      const { purged, stores } = await purgeEverywhere(shared, now, (r) => openRoute(r));
      // Ephemeral runs' outputs nobody collected within LOOM_EPHEMERAL_PICKUP_HOURS are deleted too.
      const ephemeral_outputs = await sweepEphemeralOutputs(shared, now);
      return { purged, store: stores.join(', '), ephemeral_outputs };
    },
  };
}
