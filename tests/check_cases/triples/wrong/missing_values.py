import jax
import jax.numpy as jnp


@jax.jit
def column_means(x):
    return jnp.mean(x, axis=0)  # missing values no longer skipped


@jax.jit
def relu(x):
    return jnp.where(x > 0, x, 0.0)  # NaN becomes 0
