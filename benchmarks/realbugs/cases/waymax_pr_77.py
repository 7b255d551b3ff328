# source: https://github.com/waymo-research/waymax/pull/77
# expect: JAX901
# line: 21
# observed: jax 0.10.2 CPU: AttributeError at line 21
# batch: 1
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Trajectory:
    x: jnp.ndarray
    y: jnp.ndarray
    valid: jnp.ndarray


def stack_trajectories(trajectories):
    leaves = [dataclasses.astuple(t) for t in trajectories]
    stacked = jax.tree_map(lambda *xs: jnp.stack(xs), *leaves)
    return Trajectory(*stacked)


t = Trajectory(jnp.zeros(3), jnp.ones(3), jnp.ones(3, bool))
print(stack_trajectories([t, t]).x.shape)
