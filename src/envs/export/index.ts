// Export of built-in world tasks for training elsewhere (the reference trainer on verl: see docs/scale-out.md).
export * from './envace';
export * from './parquet';
export * from './check';
