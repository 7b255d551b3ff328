# source: https://github.com/proteneer/timemachine/pull/672
# expect: JAX303
# line: 39
# observed: jax 0.10.2 CPU: parameterize_nonbonded raises AttributeError: module 'jax.ops' has no attribute 'index_update' at line 39 (removed; the PR moves the four updates to .at[:, k].set)
# batch: 10
import jax
import jax.numpy as jnp
import numpy as np


class Molecule:
    def __init__(self, name, n_atoms, seed):
        rng = np.random.default_rng(seed)
        self.name = name
        self.charges = rng.normal(size=n_atoms)
        self.sigmas = rng.uniform(0.1, 0.3, size=n_atoms)
        self.epsilons = rng.uniform(0.2, 1.0, size=n_atoms)


def standard_qlj_typer(mol):
    """Per-atom (charge, sigma, epsilon) rows."""
    return jnp.stack([mol.charges, mol.sigmas, mol.epsilons], axis=1)


class BaseTopology:
    def __init__(self, mol, ff):
        self.mol = mol
        self.ff = ff


class DualTopology:
    def __init__(self, mol_a, mol_b, ff):
        self.mol_a, self.mol_b, self.ff = mol_a, mol_b, ff

    def parameterize_nonbonded(self):
        # src_qlj_params corresponds to the end-state where both molecules interact
        # with the binding pocket at half strength.
        qlj_params_a = standard_qlj_typer(self.mol_a)
        src_qlj_params_a = jax.ops.index_update(qlj_params_a, jax.ops.index[:, 0], qlj_params_a[:, 0] * 0.5)
        src_qlj_params_a = jax.ops.index_update(src_qlj_params_a, jax.ops.index[:, 2], src_qlj_params_a[:, 2] * 0.5)
        dst_qlj_params_a = qlj_params_a

        qlj_params_b = standard_qlj_typer(self.mol_b)
        src_qlj_params_b = jax.ops.index_update(qlj_params_b, jax.ops.index[:, 0], qlj_params_b[:, 0] * 0.5)
        src_qlj_params_b = jax.ops.index_update(src_qlj_params_b, jax.ops.index[:, 2], src_qlj_params_b[:, 2] * 0.5)
        dst_qlj_params_b = qlj_params_b

        src = jnp.concatenate([src_qlj_params_a, src_qlj_params_b])
        dst = jnp.concatenate([dst_qlj_params_a, dst_qlj_params_b])
        return src, dst


top = DualTopology(Molecule("ligand_a", 12, 0), Molecule("ligand_b", 9, 1), ff=None)
src, dst = top.parameterize_nonbonded()
print(src.shape, float(jnp.abs(src - dst).sum()))
