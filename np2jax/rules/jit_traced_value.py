from __future__ import annotations

from np2jax.rule import Example, RuleDoc
from np2jax.rules.jit import JitBlocker


class JitTracedValue(JitBlocker):
    CODE = "NPJ301"
    NAME = "traced-control-flow"
    KIND = "traced-value"
    DOC = RuleDoc(
        what='Reports migrated functions that are not jitted because Python needs the value of a traced array: a `while` test, an `if` test or conditional expression that NPJ306 cannot turn into `jax.lax.cond` (the message says why), `and`/`or`/`not` outside such a test, `assert`, `int()`/`float()`/`bool()`/`.item()`/`.tolist()`, a slice bound, a shape, `axis` or `range()` bound, an index into a Python list, a repetition count (`[0] * n`, `list(r) * n`), a dict key or set member, an operand of `is True`/`is False` (a JAX bool array is neither), computed from array data (or from an argument that is also used as an array, or that holds an array or a container: documented `x : array-like`, hinted `np.ndarray`, indexed, unpacked, iterated or an operand of `@` (also through arithmetic: `ab = b - a; ab @ ab`); jax.jit cannot keep such an argument static, so `if abs(a[2]) < eps:` is a test on traced values). `min(a, b)` and `max(a, b)` of two arguments, one of them computed from arrays or a fori_loop index, are not reported: in a jitted function they become `jnp.where(b < a, b, a)` and `jnp.where(b > a, b, a)`, the argument Python returns (the first one on ties and when a NaN makes the comparison false); of three arguments, nested `jnp.where` picking as `min(min(a, b), c)` does; with more arguments, keywords or `*args` they are reported. A parameter used only through `len(a)` and elements compared with `==`/`!=` (`a[i - 1] == b[j - 1]`, an edit distance) may be a str, which jax.jit cannot take: reported, the function stays un-jitted (annotate it `np.ndarray` when it is an array). `int(np.argmax(x))` / `int(x.argmin())` (no axis) loses its cast in a jitted function: the position stays a 0-d integer array, which indexes and computes the same; a use that needs a Python int (a slice bound, `range`) is reported. An argument that `int()`, `float()` or `round()` needs as a Python value and that meets float arithmetic (`int(3600 * value + 0.5)`), used as no size, slice bound or test, is reported rather than made static: jax.jit would compile the function again for every value, and refuse an array. `getattr(x, "shape", ())` reads the shape, as `x.shape` does: it does not make `x` static. The builtin `sum(a)` of a float or complex array becomes `jnp.sum(a, axis=0)` in a jitted function: Python adds the rows one by one, which jax.jit would unroll into one addition per element (an array of 4,000 compiled for 10 s); the sum is the same but for the order of the additions (the last bits may differ). Of an integer array it stays as it is: Python adds in the dtype of the array (int8 wraps), jnp.sum in a wider one.',
        why='`jax.jit` traces with abstract values: asking Python for a concrete value raises a ConcretizationTypeError. The function is still migrated and works without jit, exactly as before. The NumPy calls computing each value Python needs (the test, the bound, the count, the key, and the calls their arguments come from) stay NumPy (analysis/eager_values.py): un-jitted they run what the original ran, instead of a JAX computation that Python then waits for and reads back (a JAX scalar is also no stand-in for a NumPy one as a repetition count, a dict key or set member, the argument of `round()` or `hash()`, or in a type check); unless the array they make is also written in place (`x[i] = v` becomes `x.at[i].set(v)`, which needs a JAX array). A function left with nothing else to rewrite stays exactly as it was, and is still reported here.',
        use_instead='`jax.lax.cond(pred, lambda: a, lambda: b)` for an `if` (branches of one shape and dtype), `jax.lax.while_loop(cond_fun, body_fun, init)` for a `while`, `jnp.where(cond, a, b)` for elementwise choices, `jax.lax.dynamic_slice` for slices at traced offsets',
        known_problems=(
            'The analysis is per module: a callee imported from another module is not looked into (see NPJ302). '
            'A parameter used as an index is taken to be a boolean mask (jit raises NonConcreteBooleanIndexError on '
            'one) only when its hint says `bool` or its name does (`mask`, `valid`, `keep`, `is_*`, `has_*`, `*_mask`); '
            'any other parameter used as an index is taken to be an integer index.'
        ),
    )
    EXAMPLES = (
        Example(
            title="a `while` loop on array values",
            before="""
            import numpy as np

            def halve_until_small(x, tol):
                while np.max(np.abs(x)) > tol:
                    x = x / 2
                return x
            """,
            diagnostics=("NPJ301",),
        ),
        Example(
            title="int() of an array result, and a slice bound",
            before="""
            import numpy as np

            def head(x, k):
                n = int(np.sum(x > 0))
                return x[:n] * k
            """,
            diagnostics=("NPJ301", "NPJ301",),
        ),
        Example(
            title="a NumPy result used as a Python value stays NumPy: a JAX scalar repeats no list",
            before="""
            import numpy as np

            def labels(levels, x):
                reps = np.prod(levels)
                return ["a", "b"] * reps, np.sum(x)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def labels(levels, x):
                reps = np.prod(levels)
                return ["a", "b"] * reps, jnp.sum(x)
            """,
            diagnostics=("NPJ301",),
        ),
    )
