/**
 * Workflows module of the bench:runtime worker: every production workflow plus the hand-written
 * baseline it is measured against (kept out of the production bundle, src/workflows/index.ts).
 */
export * from '../src/workflows';
export { benchBaselineWorkflow } from './baseline-workflow';
