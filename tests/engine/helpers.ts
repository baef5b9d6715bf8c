import { Graph, type Value } from '../../src/engine/graph';
import { gradients } from '../../src/engine/autodiff';
import * as O from '../../src/engine/ops';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { f32, type Feeds, type HostTensor, type Session } from '../../src/engine/runtime';
import { Rng } from '../../src/engine/rng';

export const rt = nodeRuntime();

export async function session(g: Graph): Promise<Session> {
  return rt.createSession(g.serialize());
}

export function randn(rng: Rng, n: number, std = 1): Float32Array {
  return rng.fillNormal(new Float32Array(n), std);
}

/**
 * Checks analytic gradients of `loss` w.r.t. float inputs against central differences along random
 * directions, all evaluated by ORT in float32. Returns the worst relative error.
 */
export async function fdCheck(
  g: Graph, loss: Value, xs: Value[], feeds: Record<string, HostTensor>, opts: { eps?: number; dirs?: number; seed?: number; extraFeeds?: Feeds } = {},
): Promise<number> {
  const eps = opts.eps ?? 1e-2;
  const grads = gradients(loss, xs);
  g.output(loss, 'loss');
  grads.forEach((d, i) => g.output(d, `grad.${xs[i].name}`));
  const s = await session(g);
  const all = { ...feeds, ...(opts.extraFeeds ?? {}) };
  const base = await s.run(all);
  const rng = new Rng(opts.seed ?? 7);
  let worst = 0;
  for (let k = 0; k < (opts.dirs ?? 3); k++) {
    const dirs = xs.map((x) => randn(rng, (feeds[x.name].data as Float32Array).length));
    let analytic = 0;
    xs.forEach((x, i) => {
      const gd = base[`grad.${x.name}`].data as Float32Array;
      for (let j = 0; j < gd.length; j++) analytic += gd[j] * dirs[i][j];
    });
    const shifted = async (sign: number) => {
      const f: Feeds = { ...all };
      xs.forEach((x, i) => {
        const src = feeds[x.name].data as Float32Array;
        const d = new Float32Array(src.length);
        for (let j = 0; j < src.length; j++) d[j] = src[j] + sign * eps * dirs[i][j];
        f[x.name] = f32(d, feeds[x.name].dims);
      });
      return ((await s.run(f, { fetches: ['loss'] })).loss.data as Float32Array)[0];
    };
    const fd = ((await shifted(1)) - (await shifted(-1))) / (2 * eps);
    if (process.env.FD_DEBUG) console.log("fd", fd, "an", analytic);
    const rel = Math.abs(fd - analytic) / Math.max(1e-2, Math.abs(fd) + Math.abs(analytic));
    worst = Math.max(worst, rel);
  }
  await s.release();
  return worst;
}

export { Graph, O, Rng, f32 };
