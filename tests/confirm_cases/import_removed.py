"""An import that fails on a removed API, at another line than the flagged call."""
import jax


def setup():
    return jax.tree_map(lambda v: v, {"a": 1})  # REAL: jax.tree_map is gone


config = setup()  # DECOY: the failure is inside setup(), not on this line
