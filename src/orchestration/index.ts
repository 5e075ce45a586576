/** Pure orchestration core (no Temporal imports): used by the workflows and by the compiler's checks. */
export * from './paths';
export * from './conditions';
export * from './output-from';
export * from './expr';
export * from './graph';
export * from './swarm';
export * from './task-dag';
export * from './steps';
export * from './escalation';
export * from './batch';
