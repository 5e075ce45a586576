/**
 * Workflow entry point of the worker bundle: the workflow function of every policy and pattern
 * (one per WORKFLOW_TYPES entry in src/shared/dispatch.ts), and registerPolicy for a vendor's own
 * workflows module (LOOM_WORKFLOWS_PATH) that re-exports these and adds x-<vendor>.* policies.
 * Named re-exports only: what the bundle ships is visible here.
 */
import type { AgentWorkflowType } from '../shared/dispatch';

export { agfReactWorkflow } from './react';
export { agfSequentialWorkflow, agfParallelWorkflow, agfLoopWorkflow, agfBatchWorkflow, agfConditionalWorkflow } from './execution-policies';
export { graphWorkflow } from './graph';
export { swarmWorkflow } from './swarm';
export { taskDagWorkflow } from './task-dag';
export { stepsWorkflow } from './steps';
export { strategiesWorkflow } from './strategies/workflow';
export { sessionWorkflow } from './session';
export { artifactsPurgeWorkflow } from './artifacts-purge';
export { strategiesMapShardWorkflow } from './strategies/map-reduce';
export { vendorPolicyWorkflow, registerPolicy, registeredPolicies } from './vendor';
export type { VendorPolicyFn } from './vendor';

// Every workflow type dispatch can start is exported above (a missing one fails to type-check).
type Exported = keyof typeof import('./index');
const everyTypeExported: Exclude<AgentWorkflowType, Exported> extends never ? true : false = true;
void everyTypeExported;
