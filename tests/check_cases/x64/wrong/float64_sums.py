import jax.numpy as jnp


def mean_square(x):
    return jnp.mean(x.astype(jnp.float32) ** 2)


def weighted_total(x, w):
    return jnp.dot(x.astype(jnp.float32), w.astype(jnp.float32))
