import jax.numpy as jnp


def mean_square(x):
    return jnp.mean(x ** 2)


def weighted_total(x, w):
    return jnp.dot(x, w)
