# source: https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix
# expect: JAX103
# line: 13
# observed: jax 0.10.2 CPU: prints 6 then 6: after c.mul = 10 the jitted bound method still multiplies by 2
# batch: 7
from jax import jit


class CustomClass:
    def __init__(self, mul):
        self.mul = mul

    def calc(self, x):
        return x * self.mul


c = CustomClass(2)
calc = jit(c.calc)
print(calc(3))  # 6
c.mul = 10
print(calc(3))  # still 6: the trace baked in mul=2
