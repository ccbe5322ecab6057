"""np2jax: migrate NumPy code to JAX and prove each migrated function equivalent."""

__version__ = "0.1.0"
