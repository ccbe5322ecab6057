import jax.numpy as jnp


def normalize_rows_(X):
    X = X / jnp.abs(X).sum(axis=-1, keepdims=True)


def clip_negative_(x):
    y = jnp.where(x < 0, 0.0, x)
    return x
