# source: https://github.com/jax-ml/jax/issues/4309
# expect: JAX209
# line: 20
# observed: jax 0.10.2 CPU: IndexError at line 20
# batch: 2
import jax.numpy as np
import numpy
from jax import jit


def getFeature(x, dn, resMap, st, en):
    resMap = resMap.conj().T
    hts = [-dn, 0, dn]
    vts = [-dn, 0, dn]
    features = []
    for j in range(0, (len(resMap[:, 0]) - 1)):
        for i in range(0, (len(resMap[0]) - 1)):
            storeStack = []
            for dt in hts:
                storeStack.append(x[resMap[j, i + 1], st + dt:en + dt])
            for dt in vts:
                storeStack.append(x[resMap[j + 1, i], st + dt:en + dt])
            features.append(np.stack(storeStack).mean(axis=0))
    return np.stack(features)


x = np.asarray(numpy.random.rand(6, 200))
resMap = np.array([[0, 1, 2], [3, 4, 5]])
print(jit(getFeature)(x, 2, resMap, 10, 50).shape)
