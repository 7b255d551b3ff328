# source: https://github.com/eelregit/pmwd/issues/9
# expect: JAX407
# line: 24
# observed: jax 0.10.2 CPU: the loop is unrolled into the jitted model: first call (trace + compile) 1.4 s with 12 steps, 4.0 s with 120
# batch: 2
import jax
import jax.numpy as jnp


def force(pos, mesh_size):
    dens = jnp.zeros(mesh_size).at[(pos % mesh_size).astype(int)].add(1.0)
    pot = jnp.fft.irfft(jnp.fft.rfft(dens) / (1.0 + jnp.arange(mesh_size // 2 + 1) ** 2), n=mesh_size)
    return -jnp.gradient(pot)[(pos % mesh_size).astype(int)]


def nbody_step(state, dt, mesh_size):
    pos, vel = state
    vel = vel + dt * force(pos, mesh_size)
    pos = pos + dt * vel
    return pos, vel


def nbody(state, steps=120, mesh_size=64):
    for i in range(steps):
        state = nbody_step(state, 1.0 / steps, mesh_size)
    return state


@jax.jit
def model(pos, vel):
    return nbody((pos, vel))


pos = jnp.linspace(0, 64, 128, endpoint=False)
print(model(pos, jnp.zeros(128))[0][:3])
