"""NPJ123: eigenvectors and singular vectors are defined only up to sign; jax.numpy's solver may pick others."""

from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext, NumpyRef
from np2jax.cstutil import number_literal
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.visitors import child_nodes

# The decompositions whose vectors have no fixed sign, and the positions of their results that hold vectors.
VECTOR_RESULTS = {"linalg.eigh": (1,), "linalg.eig": (1,), "linalg.svd": (0, 2)}


class DecompositionSigns(Rule):
    CODE = "NPJ123"
    NAME = "decomposition-signs"
    MESSAGE = (
        "the {what} of `np.{name}` are defined only up to sign (up to rotation for repeated values): jax.numpy's "
        "solver may return some of them negated, so what is computed from them may differ from NumPy's"
    )
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports `np.linalg.eigh`, `np.linalg.eig` and `np.linalg.svd` calls that are rewritten and whose vectors "
            "are used: the result kept whole, or unpacked with the eigenvectors (`w, V = ...`) or singular vectors "
            "(`U, s, Vt = ...`) bound to a name other than `_`. Eigenvalues and singular values alone "
            "(`np.linalg.eigh(C)[0]`, `w, _ = ...`, `compute_uv=False`) are not reported, nor vectors every statement "
            "reading them uses in sign-cancelling pairs: `V` untransposed as often as `V.T` (`(V * w) @ V.T`), `U` as "
            "often as `Vt` (`U @ np.diag(s) @ Vt`)."
        ),
        why=(
            "An eigenvector `v` and `-v` are equally valid; LAPACK (NumPy) and the solvers jax.numpy uses (other "
            "algorithms on GPU, other rounding in float32 on CPU) pick independently. Signs differ for some inputs: "
            "a PCA projection `X @ V[:, :k]` or a principal direction then has its sign flipped. Sign-invariant uses "
            "(`V @ np.diag(w) @ V.T`, `V ** 2`) agree."
        ),
        use_instead=(
            "fix the signs in the original (and so in both): flip each vector so its largest-magnitude component is "
            "positive, e.g. `V = V * np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])])`"
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def principal_axes(X, k):
                w, V = np.linalg.eigh(np.cov(X.T))
                return X @ V[:, ::-1][:, :k]

            def spectrum(C):
                w, _ = np.linalg.eigh(C)
                return w

            def matrix_sqrt(C):
                w, V = np.linalg.eigh(C)
                return (V * np.sqrt(np.clip(w, 0, None))) @ V.T
            """,
            after="""
            import jax.numpy as jnp

            def principal_axes(X, k):
                w, V = jnp.linalg.eigh(jnp.cov(jnp.asarray(X.T, dtype=jnp.result_type(X.T, jnp.float64))), symmetrize_input=False)
                return X @ V[:, ::-1][:, :k]

            def spectrum(C):
                w, _ = jnp.linalg.eigh(C, symmetrize_input=False)
                return w

            def matrix_sqrt(C):
                w, V = jnp.linalg.eigh(C, symmetrize_input=False)
                return (V * jnp.sqrt(jnp.clip(w, 0, None))) @ V.T
            """,
            diagnostics=("NPJ123",),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        positions = VECTOR_RESULTS.get(ref.name)
        if ref.call is None or ref.member or positions is None or ctx.resolver.args_static(ref.call, ref.scope):
            return
        if ref.name == "linalg.svd" and _compute_uv_off(ref.call):
            return
        used = _used_results(ref.call, ctx)
        if used is not None and not used & set(positions):
            return
        if used is not None and ctx.function is not None and _sign_invariant(ref.call, ref.name, ctx):
            return  # `V @ np.diag(w) @ V.T`, `U @ np.diag(s) @ Vt`: each sign cancels
        what = "eigenvectors" if ref.name != "linalg.svd" else "singular vectors"
        self.report(ctx, ref.call, self.MESSAGE.format(what=what, name=ref.name))


def _compute_uv_off(call: cst.Call) -> bool:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "compute_uv":
            return isinstance(arg.value, cst.Name) and arg.value.value == "False"
    return False


def _used_results(call: cst.Call, ctx: FileContext) -> set[int] | None:
    """The positions of ``call``'s result tuple its statement uses (``w, _ = call``: {0}; ``call[0]``: {0}), or
    None when the whole result is kept or used otherwise."""
    statement = ctx.statement[0] if ctx.statement is not None else None
    if statement is None:
        return None
    for node in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
        if isinstance(node, cst.Assign) and node.value is call and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in target.elements):
                return {i for i, e in enumerate(target.elements)
                        if not (isinstance(e.value, cst.Name) and e.value.value == "_")}
    subscript = _subscript_of(statement, call)
    if subscript is not None and len(subscript.slice) == 1 and isinstance(subscript.slice[0].slice, cst.Index):
        index = number_literal(subscript.slice[0].slice.value)
        if isinstance(index, int):
            return {index % 3 if index < 0 else index}
    return None


def _sign_invariant(call: cst.Call, name: str, ctx: FileContext) -> bool:
    """Every statement that reads the vectors pairs each with its own sign flip: ``V`` beside ``V.T`` (eigh, eig),
    ``U`` beside ``Vt`` (svd), as in ``(V * w) @ V.T`` and ``U @ np.diag(s) @ Vt``."""
    assign = ctx.statement[0].body[0]
    target = assign.targets[0].target if isinstance(assign, cst.Assign) and assign.value is call else None
    if not isinstance(target, (cst.Tuple, cst.List)):
        return False  # `U = np.linalg.svd(A)[0]`: one of the pair, its sign alone
    names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
    if any(n is None for n in names):
        return False
    vectors = [names[i] for i in VECTOR_RESULTS[name] if i < len(names)]
    statements = [s for s in _reading_statements(ctx.function.node, set(vectors)) if s is not ctx.statement[0]]
    if not statements:
        return False
    for statement in statements:
        reads = _reads(statement)
        counts = [reads.get(v, (0, 0)) for v in vectors]
        if not _in_products(statement, vectors):
            return False  # `return s[0], u.T[0], vh[0]`: read as often, but side by side, not multiplied
        if name == "linalg.svd":  # `U` and `Vt` as often (each read of one pairs with one of the other)
            if len(counts) != 2 or counts[0][0] != counts[1][0]:
                return False
        elif not all(count == 2 * transposed for count, transposed in counts):
            return False  # `V` untransposed as often as transposed
    return True


PRODUCT_CALLS = frozenset({"dot", "matmul", "einsum", "outer", "multiply", "inner", "tensordot", "multi_dot"})


def _in_products(statement: cst.CSTNode, vectors: list[str]) -> bool:
    """Is every read of the vectors inside a product (``@``, ``*``, ``np.dot``, ``np.einsum`` ...) that reads each of
    ``vectors`` (``U`` and ``Vt``; ``V`` twice for eigh) as often as the others: the two sign flips then meet?"""
    wanted = set(vectors)
    stack: list[cst.CSTNode] = [statement]
    while stack:
        current = stack.pop()
        if _is_product(current):
            reads = _reads(current)
            if wanted & set(reads):
                counts = [reads.get(v, (0, 0))[0] for v in vectors]
                if len(vectors) == 1 and counts[0] < 2 or len(set(counts)) > 1 or 0 in counts:
                    return False
                continue  # this product holds its reads
        if isinstance(current, cst.Name) and current.value in wanted:
            return False  # a read outside any product
        stack.extend(child_nodes(current))
    return True


def _is_product(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.MatrixMultiply, cst.Multiply)):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        return name in PRODUCT_CALLS
    return False


def _reading_statements(function: cst.FunctionDef, names: set[str]) -> list[cst.CSTNode]:
    """The simple statements (and compound statements' headers) of ``function`` that read one of ``names``."""
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            parts = [node]
        elif isinstance(node, (cst.If, cst.While)):
            parts, stack = [node.test], stack + [node.body] + ([node.orelse] if node.orelse else [])
        elif isinstance(node, cst.For):
            parts, stack = [node.iter], stack + [node.body] + ([node.orelse] if node.orelse else [])
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            parts = [node]  # a nested definition reading them: counted as one statement
        else:
            stack.extend(child_nodes(node))
            continue
        found.extend(part for part in parts if names & set(_reads(part)))
    return found


def _reads(node: cst.CSTNode) -> dict[str, tuple[int, int]]:
    """name -> (how many times ``node`` reads it, how many of them transposed: ``V.T``, ``V.conj().T``)."""
    counts: dict[str, list] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute) and current.attr.value in ("T", "H", "mT"):
            base = current.value
            if isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and base.func.attr.value in ("conj", "conjugate"):
                base = base.func.value
            if isinstance(base, cst.Name):
                entry = counts.setdefault(base.value, [0, 0])
                entry[0] += 1
                entry[1] += 1
                continue
        if isinstance(current, cst.Name):
            counts.setdefault(current.value, [0, 0])[0] += 1
            continue
        if isinstance(current, cst.Attribute):
            stack.append(current.value)  # (not the attribute's own name)
            continue
        stack.extend(child_nodes(current))
    return {name: (count, transposed) for name, (count, transposed) in counts.items()}


def _subscript_of(node: cst.CSTNode, call: cst.Call) -> cst.Subscript | None:
    """The subscript ``call[...]`` inside ``node``, if there is one."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Subscript) and current.value is call:
            return current
        stack.extend(child_nodes(current))
    return None
