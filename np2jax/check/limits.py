"""Default limits of ``np2jax check``, importable without NumPy (the CLI's parser needs them)."""

DEFAULT_TIMEOUT_S = 30.0  # per function and side
DEFAULT_MEMORY_MB = 4096  # address-space limit of a worker process
