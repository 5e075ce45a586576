/** INTERIM loadAgent (until src/activities/agent-loader.ts exists). */
import { FileBlobStore } from '../../../src/activities/blob-store';
import type { CompiledBundle } from '../../../src/compiler/types';
import { createTransformActivities } from '../../../src/activities/transforms';

export function stubActivities() {
  return {
    async loadAgent({ bundle, agent_id }: { bundle: { hash: string }; agent_id: string }) {
      const b = await new FileBlobStore().getJson<CompiledBundle>(bundle);
      const a = b.agents[agent_id];
      if (!a) throw new Error(`agent '${agent_id}' is not in bundle`);
      const { instructions: _i, ...rest } = a;
      return rest;
    },
    ...createTransformActivities(),
  };
}
