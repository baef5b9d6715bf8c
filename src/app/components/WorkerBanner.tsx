// Shown above every page while the compute worker (Rollout, Benchmarks, Models) is dead (issue 21): why, and a
// button that starts a fresh one. Calls that were pending on the dead worker have already rejected with
// ComputeWorkerDied, so the pages show their own error and are usable again after the restart.

import { useSyncExternalStore } from 'react';
import { computeWorkerDead, onComputeWorker, restartWorker } from '../worker';

export function WorkerBanner() {
  const dead = useSyncExternalStore((cb) => onComputeWorker(cb), computeWorkerDead);
  if (!dead) return null;
  return (
    <div className="top-error" role="alert" data-testid="worker-dead">
      <span>The compute worker stopped: {dead.reason}. What was running in it (a rollout, an evaluation, a loaded model) is lost.</span>{' '}
      <button data-testid="worker-restart" onClick={() => { void restartWorker().catch(() => undefined); }}>Restart the worker</button>
    </div>
  );
}
