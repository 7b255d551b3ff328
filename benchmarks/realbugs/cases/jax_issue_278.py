# source: https://github.com/jax-ml/jax/issues/278
# expect: JAX703
# line: 10
# observed: jax 0.10.2 CPU: prints [9] (the index is clamped), no IndexError; x[[13]] itself now raises TypeError for the list index
# batch: 2
import jax
import jax.numpy as np

x = jax.device_put(np.arange(10))
print(x[np.array([13])])  # list indices now raise TypeError; an index array keeps the report
