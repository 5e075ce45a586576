/** Workflow entry point for the worker bundle: re-exports only. */
export * from './react';
export * from './bench-baseline';
export * from './policies';
export * from './graph';
export * from './swarm';
export * from './task-dag';
export * from './steps';
export * from './vendor';
