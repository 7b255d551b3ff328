# source: https://github.com/google/flax/pull/1903
# expect: JAX201
# line: 15
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 15
# batch: 5
import jax
import jax.numpy as jnp


def create_triangular_schedule(lr_min, lr_max, steps_per_cycle):
    top = (steps_per_cycle + 1) // 2

    def learning_rate_fn(step):
        cycle_step = step % steps_per_cycle
        if cycle_step < top:
            lr = lr_min + cycle_step / top * (lr_max - lr_min)
        else:
            lr = lr_max - ((cycle_step - top) / top) * (lr_max - lr_min)
        return lr
    return learning_rate_fn


learning_rate_fn = create_triangular_schedule(3e-3, 3e-2, 10)


@jax.jit
def train_step(params, batch, step):
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    lr = learning_rate_fn(step)
    return params - lr * grads


params = jnp.ones(3)
for step in range(3):
    params = train_step(params, jnp.ones((4, 3)), step)
print(params)
