import jax.numpy as jnp

OFFSET = 1.0


def scale(x, factor):
    return jnp.asarray(x) * factor
