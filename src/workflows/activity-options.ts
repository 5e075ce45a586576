/**
 * The activity options every workflow uses: one place for timeouts and retry policies (they were
 * spelled out in each workflow file). Retries are unlimited with exponential backoff (1 s, ×2,
 * at most 30 s between attempts): the worker's outage interceptor (src/activities/outages.ts)
 * decides when to stop — a dependency outage (store, model endpoint) is waited out up to
 * LOOM_DEPENDENCY_MAX_WAIT (default 24 h), any other failure gets 5 attempts, and errors retrying
 * cannot fix are non-retryable where they are raised. Changing these values changes no command a
 * workflow issues (a ScheduleActivityTask's options are not compared on replay), so no patch.
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { OUTAGE_BACKOFF } from '../runtime/dependency-wait';

/** Unlimited attempts, the outage backoff; `nonRetryable` adds failure types never retried. */
export function patientRetry(nonRetryable: string[] = []): RetryPolicy {
  return {
    initialInterval: OUTAGE_BACKOFF.initialMs,
    backoffCoefficient: OUTAGE_BACKOFF.coefficient,
    maximumInterval: OUTAGE_BACKOFF.maxMs,
    ...(nonRetryable.length ? { nonRetryableErrorTypes: nonRetryable } : {}),
  };
}

/**
 * Options of an activity that does its work within `startToClose` per attempt (store reads and
 * writes, checks, transforms: '1 minute'; strategy model calls: '2 minutes'; purges: '10 minutes').
 */
export function patient(startToClose: Duration, nonRetryable: string[] = []): ActivityOptions {
  return { startToCloseTimeout: startToClose, retry: patientRetry(nonRetryable) };
}

/** Store reads and writes, checks, transcripts, transforms: a minute per attempt. */
export const STORE_ACTIVITY: ActivityOptions = patient('1 minute');

/** STORE_ACTIVITY with failure types never retried (a definition error, a blob that is gone). */
export function storeActivity(nonRetryable: string[]): ActivityOptions {
  return patient('1 minute', nonRetryable);
}

/** A strategy's model-backed step (llm selection, magentic's ledger, a phase's reducer): two minutes per attempt. */
export const STRATEGY_MODEL_ACTIVITY: ActivityOptions = patient('2 minutes');

/** Deleting what an ephemeral run stored: five minutes per attempt. */
export const CLEANUP_ACTIVITY: ActivityOptions = patient('5 minutes');

/** The scheduled purge of expired artifacts: ten minutes per attempt. */
export const PURGE_ACTIVITY: ActivityOptions = patient('10 minutes');

/**
 * runTool: the tool itself runs at most 10 minutes (runTool bounds it); after it ran, recording its
 * result waits out a store outage inside the same attempt (so the tool never runs twice), up to
 * the worker's LOOM_DEPENDENCY_MAX_WAIT: hence a start-to-close of 25 hours. It heartbeats every
 * 5 s, waiting included, so a call on a worker that died is retried elsewhere 15 s after its last
 * heartbeat. A tool's own transient failures get 3 attempts (runTool counts them).
 */
export const TOOL_ACTIVITY: ActivityOptions = { startToCloseTimeout: '25 hours', heartbeatTimeout: '15 seconds', retry: patientRetry() };

/** Guardrail checks: a provider that is not known or misconfigured is never retried. */
export const GUARDRAIL_ACTIVITY: ActivityOptions = storeActivity(['UnknownGuardrailProvider', 'GuardrailConfigError']);
