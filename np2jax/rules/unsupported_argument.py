from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.tables.jax_signatures import SIGNATURES
from np2jax.tables.numpy_api import KEYWORD_RENAMES

ALWAYS_UNSUPPORTED = frozenset({"out", "casting", "subok", "like", "order"})
ORDER_OK = frozenset({"jax.numpy.reshape", "jax.numpy.ravel"})


class UnsupportedArgument(Rule):
    CODE = "NPJ103"
    NAME = "unsupported-argument"
    MESSAGE = "`np.{name}` is called with {argument}, which jax.numpy does not support"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports calls that pass `out=`, `order=`, `casting=`, `subok=`, `like=`, or any argument the jax.numpy twin does not accept.",
        why="JAX arrays are immutable and have no memory layout: `out=` cannot write in place, and the other options do not exist.",
        use_instead="assign the result: `y = jnp.add(a, b)` instead of `np.add(a, b, out=y)`; drop layout options.",
        known_problems=(
            "`order=` is accepted for `reshape` and `ravel`, where it changes the element order and JAX supports it. "
            "Keywords jax.numpy only spells differently are renamed instead (`clip(a_min=, a_max=)` -> `min=`, `max=`), "
            "and `sort`/`argsort` `kind=` becomes `stable=True` for stable kinds. Ufunc methods "
            "(`np.maximum.accumulate(x, out=y)`) are checked for `out=` and the other options too."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def accumulate(a, b, buf):
                np.add(a, b, out=buf)
                return np.asarray(buf, order="F")
            """,
            diagnostics=("NPJ103", "NPJ103"),
        ),
        Example(
            before="""
            import numpy as np

            def running_max(x):
                out = np.empty_like(x)
                np.maximum.accumulate(x, out=out)
                return out
            """,
            diagnostics=("NPJ103",),
        ),
        Example(
            before="""
            import numpy as np

            def unravel(x):
                return np.reshape(x, (-1,), order="F")
            """,
            after="""
            import jax.numpy as jnp

            def unravel(x):
                return jnp.reshape(x, (-1,), order="F")
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.row is None or ref.row.jax is None:
            return
        target = f"{ref.row.jax}.{ref.member}" if ref.member else ref.row.jax  # `np.maximum.accumulate(x, out=y)`
        problem = self._problem(ref.call, target, KEYWORD_RENAMES.get(ref.row.numpy, {}))
        if problem is None:
            return
        ref.block()
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name, argument=problem))

    @staticmethod
    def _problem(call: cst.Call, target: str, renames: dict[str, str]) -> str | None:
        signature = SIGNATURES.get(target)
        positional = sum(1 for arg in call.args if arg.keyword is None and not arg.star)
        if signature is not None and positional > signature[0]:
            return f"{positional} positional arguments"
        for arg in call.args:
            if arg.keyword is None:
                continue
            keyword = arg.keyword.value
            if isinstance(arg.value, cst.Name) and arg.value.value == "None":
                continue
            if keyword in renames:
                continue
            if keyword == "kind" and target in ("jax.numpy.sort", "jax.numpy.argsort") and isinstance(arg.value, cst.SimpleString):
                continue  # NPJ100 maps it to stable=True / the default
            if signature is not None and keyword in signature[3]:
                return f"`{keyword}=`"
            if keyword in ALWAYS_UNSUPPORTED and not (keyword == "order" and target in ORDER_OK):
                return f"`{keyword}=`"
            if signature is not None and keyword not in signature[1] and "**" not in signature[1]:
                return f"`{keyword}=`"
        return None
