import jax
import jax.numpy as jnp


@jax.jit
def count_non_negative(signal):
    return jnp.count_nonzero(signal >= 0)


@jax.jit
def local_max(x):
    p = jnp.pad(x, 1, mode="constant", constant_values=-jnp.inf)
    return (x >= p[:-2]) & (x >= p[2:])


@jax.jit
def sign_units(x):
    return jnp.sign(x).astype(int)


@jax.jit
def zero_crossing_rate(x):
    s = jnp.sign(x)
    s = jnp.where(s == 0, jnp.asarray(1, s.dtype), s)
    return jnp.mean(jnp.abs(jnp.diff(s)) > 0)
