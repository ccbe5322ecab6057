import sys

from np2jax.cli import main

sys.exit(main())
