# source: https://github.com/atomicarchitects/symphony/pull/127
# expect: JAX502
# line: 47
# observed: jax 0.10.2 CPU: with num_seeds=3 the first 6 fragments are 3 repeats of the same pair (atom orders [1 2 3 0] and [2 0 1], identical for every seed and every pass of the while loop): each seed's rng is split afresh from original_rng
# batch: 8
import itertools
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Structure(NamedTuple):
    positions: jax.Array
    species: jax.Array


class Fragment(NamedTuple):
    order: jax.Array
    target_species: jax.Array


def generate_fragments(rng, structure, max_targets_per_graph):
    """Yields the first fragment of a structure, its atoms visited in a random order."""
    n_atoms = structure.positions.shape[0]
    order = jax.random.permutation(rng, n_atoms)
    yield Fragment(order=order, target_species=structure.species[order[:max_targets_per_graph]])


def create_fragments_dataset(
    rng,
    structures,
    keep_indices,
    use_same_rng_across_structures,
    max_targets_per_graph,
    num_seeds=1,
):
    """Creates an iterator of fragments from a sequence of structures."""

    def fragment_generator(rng):
        """Generates fragments for a split."""
        original_rng = rng

        # Loop indefinitely.
        while True:
            for _ in range(num_seeds):
                _, rng = jax.random.split(original_rng)
                for index in keep_indices:
                    structure = structures[index]
                    if use_same_rng_across_structures:
                        structure_rng = rng
                    else:
                        rng, structure_rng = jax.random.split(rng)
                    yield from generate_fragments(structure_rng, structure, max_targets_per_graph)

    return fragment_generator(rng)


structures = [
    Structure(positions=jnp.zeros((4, 3)), species=jnp.array([6, 1, 1, 8])),
    Structure(positions=jnp.zeros((3, 3)), species=jnp.array([8, 1, 1])),
]
dataset = create_fragments_dataset(
    jax.random.PRNGKey(0),
    structures,
    keep_indices=[0, 1],
    use_same_rng_across_structures=False,
    max_targets_per_graph=4,
    num_seeds=3,
)
for fragment in itertools.islice(dataset, 6):
    print(fragment.order)
