import jax.numpy as jnp

from pkg.helpers import OFFSET
from .helpers import scale


def smooth(x):
    out = jnp.array(x)
    out = out.at[1:-1].set((x[:-2] + x[1:-1] + x[2:]) / 3.0)
    return scale(out, 2.0) + OFFSET


def differs_on_purpose(x):
    # The migrated tree must be the one imported: this is what tells them apart.
    return -jnp.diff(x, axis=0)
