# source: https://github.com/jax-ml/jax/issues/4615
# expect: JAX101
# line: 25
# observed: jax 0.10.2 CPU: each relaxation step prints 'JUtotal:  JVPTracer(primal=-3.4712572, tangent=VmapTracer(aval=float32[], batched=float32[12]))' instead of the number the reporter wanted: the print runs on the tracer jax.jacfwd passes through total_energy
# batch: 11
import jax
import jax.numpy as jnp


class PairPotential:
    """Lennard-Jones energy of a small cluster; the optimizer needs its gradient."""

    def __init__(self, epsilon=1.0, sigma=1.0):
        self.epsilon, self.sigma = epsilon, sigma

    def pair_energy(self, r2):
        s6 = (self.sigma**2 / r2) ** 3
        return 4 * self.epsilon * (s6**2 - s6)

    def total_energy(self, positions):
        diff = positions[:, None, :] - positions[None, :, :]
        r2 = jnp.sum(diff**2, axis=-1) + jnp.eye(positions.shape[0])
        upper = jnp.triu(jnp.ones_like(r2), k=1)
        ret = jnp.sum(upper * self.pair_energy(r2))
        print("JUtotal: ", ret)
        return ret


def relax(potential, positions, steps=3, lr=1e-3):
    grad_energy = jax.jacfwd(potential.total_energy)
    for _ in range(steps):
        forces = -grad_energy(positions)
        positions = positions + lr * forces
    return positions


positions = jnp.array([[0.0, 0.0, 0.0], [1.1, 0.0, 0.0], [0.0, 1.2, 0.0], [0.0, 0.0, 1.15]])
positions = relax(PairPotential(), positions)
