# source: https://github.com/proteneer/timemachine/pull/800
# expect: JAX201
# line: 13
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 13
# batch: 4
import jax.numpy as jnp
from jax import jit


def nonbonded_v3(conf, params, box, lamb, cutoff=1.2, runtime_validate=True):
    if runtime_validate:
        # the box must be large enough for the cutoff
        assert (jnp.diag(box) > 2 * cutoff).all(), "box too small for cutoff"
    dij = jnp.linalg.norm(conf[:, None, :] - conf[None, :, :] + 1e-6, axis=-1)
    qij = params[:, None, 0] * params[None, :, 0]
    keep = 1.0 - jnp.eye(conf.shape[0])
    return jnp.sum(keep * qij / (dij + lamb)) / 2


class Nonbonded:
    def __init__(self, cutoff):
        self.cutoff = cutoff

    def to_reference(self):
        def ref(conf, params, box, lam):
            return nonbonded_v3(conf, params, box, lam, cutoff=self.cutoff)
        return ref


nonbonded_ref = Nonbonded(1.2).to_reference()
conf, params, box = jnp.ones((4, 3)) * jnp.arange(4.0)[:, None], jnp.ones((4, 2)), 5.0 * jnp.eye(3)
print(nonbonded_ref(conf, params, box, 0.0))  # OK
nonbonded_ref_jit = jit(nonbonded_ref)
print(nonbonded_ref_jit(conf, params, box, 0.0))
