/**
 * Deletes expired artifacts (the Agent Definition Specification's retention): one activity over the shared store. Started on
 * a Temporal Schedule that `loom artifacts purge --schedule` creates (id `loom-artifacts-purge`,
 * hourly by default), or once by `loom artifacts purge`.
 */
import { proxyActivities } from '@temporalio/workflow';
import { PURGE_ACTIVITY } from './activity-options';
import type { Activities } from '../activities';

const { purgeExpiredArtifacts } = proxyActivities<Activities>(PURGE_ACTIVITY);

export async function artifactsPurgeWorkflow(): Promise<{ purged: number; store: string; ephemeral_outputs?: number }> {
  return purgeExpiredArtifacts();
}
