# source: https://github.com/flo-schu/pymob/issues/161
# expect: JAX804
# line: 23
# observed: jax 0.10.2 CPU: ValueError at line 23
# batch: 3
import jax
import jax.numpy as jnp


class JaxSolver:
    def __init__(self, n_ode_states, y0_names):
        self.n_ode_states = n_ode_states
        self.y0_names = y0_names

    def odeint(self, *args):
        y = jnp.stack(args[:self.n_ode_states])
        return y * args[-1]

    def evaluator(self, Y_0, ode_args, x_in):
        # one in_axes entry per ODE state, per ODE argument and for the input
        in_axes = (0,) * self.n_ode_states + (None,) * len(ode_args) + (0,)
        loop_eval = jax.vmap(self.odeint, in_axes=in_axes)
        return loop_eval(*Y_0, *ode_args, *x_in)


# the configuration names no y0 expression: Y_0 is empty while n_ode_states is 1
solver = JaxSolver(n_ode_states=1, y0_names=[])
Y_0 = [jnp.ones(5) for name in solver.y0_names]
print(solver.evaluator(Y_0, [0.5, 2.0], [jnp.linspace(0, 1, 5)]))
