# source: https://github.com/gdsfactory/klujax/issues/34
# expect: JAX202
# line: 13
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 13
# batch: 2
import jax
import jax.numpy as jnp


def analyze(Ai, Aj, n_col):
    # the symbolic handle is computed with jnp, then turned into a Python int
    raw_symbol = jnp.sum(Ai * n_col + Aj).astype(jnp.uint32)
    return int(raw_symbol)


def circuit(netlist_Ai, netlist_Aj, n_col):
    symbolic = analyze(netlist_Ai, netlist_Aj, n_col)

    def circuit_fn(wl):
        return jnp.cos(2 * jnp.pi / wl) * (symbolic % 7)
    return circuit_fn


def coupler_ring(wl=1.55):
    circuit_fn = circuit(jnp.array([0, 1, 2]), jnp.array([1, 2, 0]), 3)
    return circuit_fn(wl=wl)


@jax.jit
def newton_step(wl):
    return coupler_ring(wl) - 0.5


print(newton_step(1.55))
