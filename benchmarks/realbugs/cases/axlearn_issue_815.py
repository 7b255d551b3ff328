# source: https://github.com/apple/axlearn/issues/815
# expect: JAX201
# line: 21
# observed: jax 0.10.2 CPU: the layer called directly passes the check (prints (8, 16)); inside Repeat.forward, whose lax.scan (over jax.checkpoint) traces the layer, TracerBoolConversionError at line 21: `bool(jnp.isfinite(x).all())` on the traced layer output
# batch: 13
import jax
import jax.numpy as jnp

_enable_numeric_checks = False


def enable_numeric_checks(enabled=True):
    global _enable_numeric_checks
    _enable_numeric_checks = enabled


def check_numerics(x, msg_fmt: str = "", **msg_kwargs):
    """Checks that all elements in `x` are finite."""
    global _enable_numeric_checks  # pylint: disable=global-statement,global-variable-not-assigned
    if _enable_numeric_checks:
        assert bool(jnp.isfinite(x).all()), f"Check numerics {msg_fmt.format(**msg_kwargs)}: {x}"
    return x


class FeedForwardLayer:
    def __init__(self, dim, hidden_dim):
        self.dim, self.hidden_dim = dim, hidden_dim

    def initialize_parameters(self, key):
        k1, k2 = jax.random.split(key)
        return {"w1": jax.random.normal(k1, (self.dim, self.hidden_dim)) * 0.02,
                "w2": jax.random.normal(k2, (self.hidden_dim, self.dim)) * 0.02}

    def forward(self, params, inputs):
        x = jax.nn.gelu(inputs @ params["w1"]) @ params["w2"]
        x = check_numerics(x, "{name} output", name="feed_forward")
        return inputs + x


class Repeat:
    """Applies `num_layers` copies of a layer with a scan over stacked parameters (repeat.py)."""

    def __init__(self, layer, num_layers, remat=True):
        self.layer, self.num_layers, self.remat = layer, num_layers, remat

    def initialize_parameters(self, key):
        keys = jax.random.split(key, self.num_layers)
        return jax.vmap(self.layer.initialize_parameters)(keys)

    def forward(self, params, inputs):
        def fn(carry, layer_params):
            return self.layer.forward(layer_params, carry), None

        if self.remat:
            fn = jax.checkpoint(fn)
        outputs, _ = jax.lax.scan(fn, inputs, params)
        return outputs


enable_numeric_checks()
model = Repeat(FeedForwardLayer(dim=16, hidden_dim=64), num_layers=4)
params = model.initialize_parameters(jax.random.PRNGKey(0))
inputs = jax.random.normal(jax.random.PRNGKey(1), (8, 16))
print(FeedForwardLayer(16, 64).forward(jax.tree_util.tree_map(lambda p: p[0], params), inputs).shape)
try:
    model.forward(params, inputs)
except jax.errors.TracerBoolConversionError as e:
    print("TracerBoolConversionError:", str(e).splitlines()[0])
