// Public surface of the engine core (browser-safe: no Node imports; use runtime-node.ts in Node).
export * from './graph';
export * as ops from './ops';
export { gradients } from './autodiff';
export * from './decoder';
export * from './losses';
export * from './graphs';
export * from './adamw';
export * from './runtime';
export * from './trainer-core';
export * from './kvcache';
export { Rng } from './rng';
