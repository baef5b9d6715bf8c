// Reverse-mode autodiff over the builder's node list: walk nodes backwards from the loss,
// call each op's VJP rule, and sum gradients that fan in. The emitted gradient nodes are
// ordinary ONNX nodes appended to the same graph.
import { type Value } from './graph';
import { RULES, add, expand } from './ops';

/** d(loss)/d(w) for each w (same shapes as w). `seed` defaults to ones shaped like loss. */
export function gradients(loss: Value, wrt: Value[], seed?: Value): Value[] {
  const g = loss.g;
  const nodes = g.nodes.slice();

  // Values that depend on wrt through differentiable ops; nondiff ops cut the dependency.
  const dep = new Set<Value>(wrt);
  for (const n of nodes) {
    if (RULES[n.op]?.nondiff) continue;
    if (n.inputs.some((x) => x && dep.has(x))) n.outputs.forEach((o) => dep.add(o));
  }
  if (!dep.has(loss)) throw new Error('loss does not depend on any of the requested values');

  const grads = new Map<Value, Value>();
  grads.set(loss, seed ?? g.const(1, loss.dims));
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i];
    const dy = grads.get(n.outputs[0]);
    if (!dy || n.outputs.length !== 1) continue;
    const need = n.inputs.map((x) => !!x && dep.has(x));
    if (!need.some(Boolean)) continue;
    const r = RULES[n.op];
    if (!r?.vjp) throw new Error(`no gradient rule for ${n.op}`);
    const dIns = r.vjp(n, dy, need);
    n.inputs.forEach((x, j) => {
      const d = dIns[j];
      if (!x || !need[j] || !d) return;
      const prev = grads.get(x);
      grads.set(x, prev ? add(prev, d) : d);
    });
  }
  return wrt.map((w) => grads.get(w) ?? expand(g.const(0), w.dims));
}
