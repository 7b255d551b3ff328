# source: https://github.com/sandialabs/WecOptTool/issues/427
# expect: JAX301
# line: 20
# observed: jax 0.10.2 CPU: TypeError at line 20
# batch: 1
import jax.numpy as jnp


def mimo_transfer_mat(transfer_mat, zero_freq=True):
    """Build the real block matrix of a multiple-input multiple-output transfer function."""
    ndof = transfer_mat.shape[1]
    nfreq = transfer_mat.shape[0]
    ncomp = 2 * nfreq - (1 if zero_freq else 0)
    mimo = jnp.zeros((ndof * ncomp, ndof * ncomp))
    for idof in range(ndof):
        for jdof in range(ndof):
            Zp = transfer_mat[:, idof, jdof]
            block = jnp.diag(jnp.concatenate([Zp.real, Zp.imag[1:]]))
            r0, c0 = idof * ncomp, jdof * ncomp
            mimo[r0:r0 + ncomp, c0:c0 + ncomp] = block
    return mimo


print(mimo_transfer_mat(jnp.ones((3, 2, 2), dtype=jnp.complex64)).shape)
