# source: https://github.com/jkitchin/pounce/issues/795
# expect: JAX202
# line: 15
# observed: jax 0.10.2 CPU: eagerly and under jit with NumPy bounds the layer returns [0.49998 -0.99996]; jax.jit(layer) with jnp bounds raises ConcretizationTypeError (traced float32[]) at line 15: under jit, indexing the jnp bound ub[i] is staged, so float() gets a tracer
# batch: 10
import jax
import jax.numpy as jnp
import numpy as np


def _expand_bounds(n, G, h, lb, ub):
    """Fold finite box bounds into the inequality rows G x <= h (bounds carry no gradient)."""
    rows, rhs = [], []
    for i in range(n):
        if ub is not None and np.isfinite(float(ub[i])):
            row = np.zeros(n)
            row[i] = 1.0
            rows.append(row)
            rhs.append(ub[i])
        if lb is not None and np.isfinite(float(lb[i])):
            row = np.zeros(n)
            row[i] = -1.0
            rows.append(row)
            rhs.append(-lb[i])
    if not rows:
        return G, h
    G_b, h_b = jnp.asarray(np.stack(rows)), jnp.stack([jnp.asarray(r, dtype=jnp.float32) for r in rhs])
    if G is None:
        return G_b, h_b
    return jnp.concatenate([G, G_b]), jnp.concatenate([h, h_b])


def solve_qp(P, c, G=None, h=None, lb=None, ub=None, rho=50.0, steps=500, lr=0.01):
    """min 1/2 x^T P x + c^T x  s.t. G x <= h, lb <= x <= ub, by a quadratic penalty.

    All array args are dense jnp/np arrays."""
    n = c.shape[0]
    G, h = _expand_bounds(n, G, h, lb, ub)

    def objective(x):
        value = 0.5 * x @ P @ x + c @ x
        if G is not None:
            value = value + 0.5 * rho * jnp.sum(jax.nn.relu(G @ x - h) ** 2)
        return value

    def body(_, x):
        return x - lr * jax.grad(objective)(x)

    return jax.lax.fori_loop(0, steps, body, jnp.zeros(n))


class QPLayer:
    def __init__(self, P, lb, ub):
        self.P, self.lb, self.ub = P, lb, ub

    def __call__(self, c):
        return solve_qp(self.P, c, lb=self.lb, ub=self.ub)


P = 2.0 * jnp.eye(2)
c = jnp.array([-1.0, 2.0])
layer_np = QPLayer(P, np.array([-10.0, -10.0]), np.array([10.0, 10.0]))
layer_jnp = QPLayer(P, jnp.array([-10.0, -10.0]), jnp.array([10.0, 10.0]))
print("eager, jnp bounds:", layer_jnp(c))
print("jit, numpy bounds:", jax.jit(layer_np)(c))
print("jit, jnp bounds:", jax.jit(layer_jnp)(c))
