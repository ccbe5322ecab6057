import jax
import jax.numpy as jnp


@jax.jit
def column_means(x):
    return jnp.nanmean(x, axis=0)


@jax.jit
def relu(x):
    return jnp.maximum(x, 0.0)
