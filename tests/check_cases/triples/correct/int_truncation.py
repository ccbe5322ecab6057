import jax.numpy as jnp


def scaled(x):
    out = jnp.zeros(x.shape)
    out = out.at[...].set(x * 1.5)
    return out


def half_counts(counts):
    return jnp.asarray(counts) / 2
