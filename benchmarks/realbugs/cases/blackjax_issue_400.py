# source: https://github.com/blackjax-devs/blackjax/issues/400
# expect: JAX501
# line: 50
# observed: jax 0.10.2 CPU: the initial positions for `u_sigma` and `v_sigma` are drawn from the same key (`keys[6]`, lines 49 and 50): with the same HalfNormal prior both start at the identical value (printed: True)
# batch: 14
import jax
import jax.numpy as jnp
from jax import random


class Normal:
    def __init__(self, loc, scale):
        self.loc, self.scale = loc, scale

    def sample(self, sample_shape=(), seed=None):
        return self.loc + self.scale * random.normal(seed, sample_shape)

    def log_prob(self, x):
        return -0.5 * ((x - self.loc) / self.scale) ** 2 - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi)


class HalfNormal:
    def __init__(self, scale):
        self.scale = scale

    def sample(self, sample_shape=(), seed=None):
        return jnp.abs(self.scale * random.normal(seed, sample_shape))

    def log_prob(self, x):
        return jnp.where(x >= 0, -0.5 * (x / self.scale) ** 2 + jnp.log(2.0) - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi), -jnp.inf)


num_users, num_items, rank = 20, 15, 3
u_mu_prior = Normal(0.0, 1.0)
v_mu_prior = Normal(0.0, 1.0)
u_sigma_prior = HalfNormal(1.0)
v_sigma_prior = HalfNormal(1.0)
obs_sigma_prior = HalfNormal(1.0)


def initial_position(rng_key):
    keys = random.split(rng_key, 8)
    u_mu = u_mu_prior.sample((rank,), seed=keys[0])
    v_mu = v_mu_prior.sample((rank,), seed=keys[1])
    u = Normal(0.0, 1.0).sample((num_users, rank), seed=keys[2])
    v = Normal(0.0, 1.0).sample((num_items, rank), seed=keys[3])
    obs_sigma = obs_sigma_prior.sample(seed=keys[4])
    _unused = keys[5]
    u_sigma = u_sigma_prior.sample(seed=keys[6])
    v_sigma = v_sigma_prior.sample(seed=keys[6])
    return {"u_mu": u_mu, "v_mu": v_mu, "u": u, "v": v, "u_sigma": u_sigma, "v_sigma": v_sigma,
            "obs_sigma": obs_sigma}


def logdensity(position, ratings):
    lp = u_mu_prior.log_prob(position["u_mu"]).sum() + v_mu_prior.log_prob(position["v_mu"]).sum()
    lp += u_sigma_prior.log_prob(position["u_sigma"]) + v_sigma_prior.log_prob(position["v_sigma"])
    lp += Normal(position["u_mu"], position["u_sigma"]).log_prob(position["u"]).sum()
    lp += Normal(position["v_mu"], position["v_sigma"]).log_prob(position["v"]).sum()
    pred = position["u"] @ position["v"].T
    return lp + Normal(pred, position["obs_sigma"]).log_prob(ratings).sum()


rng_key = random.PRNGKey(0)
rng_key, init_key, data_key = random.split(rng_key, 3)
ratings = random.normal(data_key, (num_users, num_items))
position = initial_position(init_key)
print("u_sigma == v_sigma:", bool(position["u_sigma"] == position["v_sigma"]))
print("logdensity:", logdensity(position, ratings))
