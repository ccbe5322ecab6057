"""Imports: added once, reused when present, removed only when migration took the last use, comments kept."""

from __future__ import annotations

import textwrap

import numpy as np

import pytest

from np2jax.engine import Options, migrate_source

NO_JIT = Options(jit=False)  # these tests are about other rewrites; jit has its own tests


def migrate(source: str, path: str = "mod.py") -> str:
    result = migrate_source(textwrap.dedent(source).lstrip("\n").encode(), path, NO_JIT)
    assert result.error is None
    return result.output.decode()


CASES = [
    pytest.param(
        """
        from numpy import (
            exp,  # elementwise
            float32,
        )
        from numpy import log  # natural log
        from numpy import (
            sqrt,
            float64,
        )

        def f(x):
            return exp(x) + log(x) + sqrt(x) + float64(2) + float32(1)
        """,
        """
        from numpy import (
            exp,  # elementwise
            float32,
        )
        import jax.numpy as jnp
        from numpy import log  # natural log
        from numpy import (
            float64,
        )

        def f(x):
            return jnp.exp(x) + jnp.log(x) + jnp.sqrt(x) + float64(2) + float32(1)
        """,
        id="comments-on-removed-names-keep-their-imports",
    ),
    pytest.param(
        '''
        """Docstring."""
        from __future__ import annotations

        import os


        def f(x):
            import numpy as np
            return np.sum(x)
        ''',
        '''
        """Docstring."""
        from __future__ import annotations
        import jax.numpy as jnp

        import os


        def f(x):
            import numpy as np
            return jnp.sum(x)
        ''',
        id="added-after-docstring-and-future-imports",
    ),
    pytest.param(
        """
        import numpy as np
        from jax import numpy as jn

        def f(x):
            return np.sum(x) + jn.mean(x)
        """,
        """
        from jax import numpy as jn

        def f(x):
            return jn.sum(x) + jn.mean(x)
        """,
        id="existing-jax-numpy-alias-reused",
    ),
    pytest.param(
        """
        import numpy as np, os

        def f(x):
            return np.sum(x), os.sep
        """,
        """
        import os
        import jax.numpy as jnp

        def f(x):
            return jnp.sum(x), os.sep
        """,
        id="only-the-numpy-alias-leaves-a-shared-statement",
    ),
    pytest.param(
        """
        import numpy as np

        __all__ = ["np", "f"]

        def f(x):
            return np.sum(x)
        """,
        """
        import numpy as np
        import jax.numpy as jnp

        __all__ = ["np", "f"]

        def f(x):
            return jnp.sum(x)
        """,
        id="re-exported-name-kept",
    ),
    pytest.param(
        """
        import numpy as np

        jnp = "taken"

        def f(x):
            return np.sum(x)
        """,
        """
        import jax.numpy as jax_numpy

        jnp = "taken"

        def f(x):
            return jax_numpy.sum(x)
        """,
        id="alias-avoids-a-taken-name",
    ),
]


@pytest.mark.parametrize("before, after", CASES)
def test_imports(before, after):
    expected = textwrap.dedent(after).lstrip("\n")
    assert migrate(before) == expected
    assert migrate(expected) == expected


def test_star_import_names_resolve_to_numpy_and_shadow_builtins():
    source = "from numpy import *\n\ndef f(x):\n    return sum(exp(x)) + len(x)\n"
    expected = "from numpy import *\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(jnp.exp(x)) + len(x)\n"
    assert migrate(source) == expected


def test_package_init_keeps_numpy_imports():
    source = "import numpy as np\n\ndef f(x):\n    return np.sum(x)\n"
    assert migrate(source, "pkg/__init__.py") == "import numpy as np\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(x)\n"


def test_unused_numpy_import_in_untouched_file_is_not_removed():
    source = "import numpy as np\n\ndef f(x):\n    return x + 1\n"
    assert migrate(source) == source


JIT_CASES = [
    pytest.param(
        """
        import jax
        import numpy as np

        def f(x):
            return np.sum(x)
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            x = jnp.asarray(x)
            return jnp.sum(x)
        """,
        (),
        id="jax-already-imported-is-reused",
    ),
    pytest.param(
        '''
        """Docstring."""
        from __future__ import annotations
        from numpy import exp

        def f(x, n):
            return exp(x)[:n]
        ''',
        '''
        """Docstring."""
        from __future__ import annotations
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=(1,))
        def f(x, n):
            x = jnp.asarray(x)
            return jnp.exp(x)[:n]
        ''',
        (),
        id="from-import-then-jit-imports",
    ),
    pytest.param(
        """
        import numpy as np

        jax = "not the library"

        def f(x):
            return np.sum(x)
        """,
        """
        import jax.numpy as jnp

        jax = "not the library"

        def f(x):
            return jnp.sum(x)
        """,
        ("NPJ304",),
        id="name-jax-taken-no-decorator",
    ),
]


@pytest.mark.parametrize("before, after, codes", JIT_CASES)
def test_jit_imports(before, after, codes):
    source = textwrap.dedent(before).lstrip("\n").encode()
    expected = textwrap.dedent(after).lstrip("\n")
    result = migrate_source(source, "mod.py")
    assert result.output.decode() == expected
    assert sorted(d.code for d in result.diagnostics) == sorted(codes)
    assert migrate_source(expected.encode(), "mod.py").output.decode() == expected


def test_imports_under_main_block_are_not_reused():
    """`import jax.numpy as jnp` / `import jax` only under `if __name__ == "__main__":` do not run when the module
    is imported: the migrated functions need their own top-level imports (they raised NameError)."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x):
            return np.sum(x) * 2


        if __name__ == "__main__":
            import jax
            import jax.numpy as jnp
            print(f(jnp.ones(3)))
        """)
    result = migrate_source(source.encode(), "m.py", Options())
    output = result.output.decode()
    head = output.split("if __name__")[0]
    assert "import jax\n" in head and "import jax.numpy as jnp\n" in head and "@jax.jit" in head, output
    namespace = {"__name__": "m"}
    exec(compile(output, "m.py", "exec"), namespace)
    assert float(namespace["f"](np.ones(3))) == 6.0
    assert migrate_source(output.encode(), "m.py", Options()).output.decode() == output
