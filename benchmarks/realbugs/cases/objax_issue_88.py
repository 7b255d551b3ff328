# source: https://github.com/google/objax/issues/88
# expect: JAX102
# line: 21
# observed: jax 0.10.2 CPU: the first generator update (g_gv at line 80) raises UnexpectedTracerError (a float32[128] LinearizeTracer escaped): the discriminator step, traced under value_and_grad, stored its batch-norm running mean on the BatchNorm instance, and the generator step reads that leaked tracer
# batch: 10
import jax
import jax.numpy as jnp


class BatchNorm:
    """Batch norm keeping running averages on the instance, as an objax module does."""

    def __init__(self, n, momentum=0.9, eps=1e-5):
        self.running_mean = jnp.zeros(n)
        self.running_var = jnp.ones(n)
        self.momentum, self.eps = momentum, eps

    def __call__(self, x, training):
        if training:
            mean, var = x.mean(0), x.var(0)
            self.running_mean = self.momentum * self.running_mean + (1 - self.momentum) * mean
            self.running_var = self.momentum * self.running_var + (1 - self.momentum) * var
        else:
            mean, var = self.running_mean, self.running_var
        return (x - mean) / jnp.sqrt(var + self.eps)


class Generator:
    def init(self, key, nz=16, nh=64, nx=32):
        k1, k2 = jax.random.split(key)
        return {"w1": jax.random.normal(k1, (nz, nh)) * 0.1, "w2": jax.random.normal(k2, (nh, nx)) * 0.1}

    def __call__(self, params, z):
        return jnp.tanh(jax.nn.relu(z @ params["w1"]) @ params["w2"])


class Discriminator:
    def __init__(self, nh=128):
        self.bn = BatchNorm(nh)

    def init(self, key, nx=32, nh=128):
        k1, k2 = jax.random.split(key)
        return {"w1": jax.random.normal(k1, (nx, nh)) * 0.1, "w2": jax.random.normal(k2, (nh, 1)) * 0.1}

    def __call__(self, params, x, training):
        h = self.bn(x @ params["w1"], training)
        return jax.nn.leaky_relu(h, 0.2) @ params["w2"]


def sigmoid_cross_entropy_logits(logits, labels):
    return jnp.maximum(logits, 0) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))


generator, discriminator = Generator(), Discriminator()


def d_loss(d_params, g_params, x, z):
    real = sigmoid_cross_entropy_logits(discriminator(d_params, x, training=True), 1.0).mean()
    fake_img = generator(g_params, z)
    fake = sigmoid_cross_entropy_logits(discriminator(d_params, fake_img, training=True), 0.0).mean()
    return real + fake


def g_loss(g_params, d_params, z):
    fake_img = generator(g_params, z)
    return sigmoid_cross_entropy_logits(discriminator(d_params, fake_img, training=True), 1.0).mean()


d_gv = jax.jit(jax.value_and_grad(d_loss))
g_gv = jax.jit(jax.value_and_grad(g_loss))

kg, kd, kx = jax.random.split(jax.random.PRNGKey(0), 3)
g_params, d_params = generator.init(kg), discriminator.init(kd)
for step in range(3):
    kx, kb, kz = jax.random.split(kx, 3)
    x = jax.random.normal(kb, (64, 32))
    z = jax.random.normal(kz, (64, 16))
    d_val, d_grads = d_gv(d_params, g_params, x, z)
    d_params = jax.tree_util.tree_map(lambda p, g: p - 2e-4 * g, d_params, d_grads)
    g_val, g_grads = g_gv(g_params, d_params, z)
    g_params = jax.tree_util.tree_map(lambda p, g: p - 2e-4 * g, g_params, g_grads)
    print(step, float(d_val), float(g_val))
