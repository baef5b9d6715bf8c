// Worker-thread entry of the isolated fuzz runner (./isolate.ts): Node cannot start a worker on a .ts file,
// so this registers tsx's loader in the worker and then imports the TypeScript worker module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
