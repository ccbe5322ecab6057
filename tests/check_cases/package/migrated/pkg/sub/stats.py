import jax.numpy as jnp

from ..helpers import scale


def centred(x):
    return scale(x - jnp.mean(x, axis=0), 1.0)
