import jax.numpy as jnp


def running_mean(x):
    return jnp.cumsum(x.astype(jnp.bfloat16), axis=0) / jnp.arange(1, x.shape[0] + 1).reshape((-1,) + (1,) * (x.ndim - 1))


def energy(x):
    h = x.astype(jnp.float16)
    return jnp.sum(h * h).astype(jnp.float32)
