import jax
import jax.numpy as jnp


@jax.jit
def count_non_negative(signal):
    return jnp.count_nonzero(signal > 0)  # zeros not counted


@jax.jit
def local_max(x):
    p = jnp.pad(x, 1, mode="constant", constant_values=-jnp.inf)
    return (x > p[:-2]) & (x >= p[2:])  # plateaus lost


@jax.jit
def sign_units(x):
    return jnp.where(x >= 0, 1, -1)  # zero counted as positive


@jax.jit
def zero_crossing_rate(x):
    s = jnp.where(x > 0, 1.0, -1.0)  # zero counted as negative
    return jnp.mean(jnp.abs(jnp.diff(s)) > 0)
