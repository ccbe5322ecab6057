import jax.numpy as jnp


def clamp_ends(x):
    y = x.copy()
    y = y.at[0].set(0.0)
    y.at[-1].set(0.0)
    return y


class Tally:
    def __init__(self, n):
        self.counts = jnp.zeros(n)

    def add(self, i):
        self.counts.at[i].add(1.0)
