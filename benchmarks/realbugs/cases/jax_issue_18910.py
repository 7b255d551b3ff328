# source: https://github.com/jax-ml/jax/issues/18910
# expect: JAX102
# line: 20
# observed: jax 0.10.2 CPU: f, jit(f), grad(f) and jit(grad(f)) all give 105.0 / 12.0, but after grad(f) the user's cpt.c holds a LinearizeTracer (set_c stored it on the instance), and cpt.get_d() afterwards raises UnexpectedTracerError
# batch: 11
import jax
import jax.numpy as jnp


class CPT:
    """A custom pytree whose method stores an intermediate result on the instance."""

    __slots__ = ("a", "b", "c")

    def __init__(self, *, a, b):
        self.a = a
        self.b = b

    def set_c(self, e, t=None):
        self.c = self.a * self.b * e
        return t

    def get_d(self, t=None):
        return self.c * 2 + 1

    def flatten(self):
        return ((self.a, self.b), (["a", "b"],))

    @classmethod
    def unflatten(cls, aux, vals):
        return cls(**dict(zip(aux[0], vals)))


jax.tree_util.register_pytree_node(CPT, CPT.flatten, CPT.unflatten)


def f(x, e, cpt):
    e = e.at[1:2].set(x)
    t = cpt.set_c(e, None)
    d = cpt.get_d(t)
    return d.sum()


_2s, _3s, _4s = 2 * jnp.ones(3), 3 * jnp.ones(3), 4 * jnp.ones(3)
cpt = CPT(a=_2s, b=_3s)
jf = jax.jit(f)
gf = jax.grad(f)
jgf = jax.jit(jax.grad(f))
print("f:", f(0.5, _4s, cpt), "jit(f):", jf(0.5, _4s, cpt))
print("grad(f):", gf(0.5, _4s, cpt), "jit(grad(f)):", jgf(0.5, _4s, cpt))
print("cpt.c after the transformed calls:", type(cpt.c).__name__)
print("d from the stored c:", cpt.get_d())
