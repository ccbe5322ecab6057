"""Edge cases of NPJ200 beyond the rule's own examples."""

from __future__ import annotations

import textwrap

from np2jax.engine import Options, migrate_source

NO_JIT = Options(jit=False)  # these tests are about other rewrites; jit has its own tests


def test_unpacking_temporaries_never_shadow_an_enclosing_name():
    source = textwrap.dedent(
        """
        import numpy as np

        def outer(step, n):
            new_means = 1.0

            def inner():
                means = np.zeros((n, 2))
                for t in range(n):
                    means[t], scale = step(t)
                return means * new_means

            return inner()
        """
    ).lstrip()
    output = migrate_source(source.encode(), "m.py", NO_JIT).output.decode()
    assert "new_means2, scale = step(t)" in output
    assert "means = means.at[t].set(new_means2)" in output
    assert "return means * new_means\n" in output
