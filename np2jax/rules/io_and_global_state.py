from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class IoAndGlobalState(Rule):
    CODE = "NPJ112"
    NAME = "io-and-global-state"
    MESSAGE = "`np.{name}` does I/O or changes process-wide state"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports file I/O (`load`, `save`, `loadtxt` ...), printing and formatting, and global NumPy settings inside functions.",
        why="A jitted function runs its Python once, at trace time: I/O would happen once, on abstract values, not per call.",
        use_instead="do I/O and configuration outside the migrated function and pass arrays in",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def load_and_scale(path, k):
                data = np.loadtxt(path)
                np.set_printoptions(precision=3)
                return data * k
            """,
            diagnostics=("NPJ112", "NPJ112"),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.row is None or ref.row.kind != "io" or ref.member:
            return
        ref.block()
        if ref.call is not None:
            self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name), use_instead=ref.row.guideline)
