from __future__ import annotations

import libcst as cst

from np2jax.analysis.jit_plan import PrefixMask
from np2jax.analysis.loops import all_names, contains, descendants, subscripts
from np2jax.analysis.tracing import LoopConversion
from np2jax.context import FileContext, loop_plan
from np2jax.cstutil import call
from np2jax.diagnostics import Diagnostic, FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc


class LoopToFori(Rule):
    CODE = "NPJ305"
    NAME = "loop-to-fori"
    MESSAGE = "loop became `jax.lax.fori_loop` ({carry})"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "In a function that gets `jax.jit`, turns a `for` loop over `range(a, b)`, over the rows of an array, or "
            "over `enumerate(array)` or `zip(xs, ys)` (for `min(len(xs), len(ys))` steps, as `zip` stops at the shortest) "
            "into `jax.lax.fori_loop`, when it is longer than the unroll threshold (8) or its "
            "length is known only at run time. The body becomes a nested function of the loop index and the "
            "*carried* values: the names the body assigns that exist before the loop."
        ),
        why=(
            "`jax.jit` unrolls Python loops: compile time grows with the trip count (seconds for 100 steps, "
            "tens of seconds for 1000). `fori_loop` compiles the body once and runs the same operations in the "
            "same order, so the result is the same."
        ),
        use_instead="nothing to do: the loop is converted for you",
        known_problems=(
            "A carried value that starts as a Python number or `None` (`total = 0.0`), or is first set inside the "
            "loop and used after it, is converted only in a `range` loop whose bounds are known at trace time, or a "
            "loop over an array (`for sample in x:`, its first step taking `x[0]`; a parameter nothing but this use of its "
            "elements as numbers says is an array is iterated as `jnp.asarray(x)`, so a caller's list works too), and "
            "when every value the body gives it is computed from arrays: the first step then runs before the "
            "fori_loop, under `if lower < upper:` (`if 0 < len(x):`), so the value has its array shape and dtype when the fori_loop "
            "starts (a zero-step loop still runs no step). A name that takes what another such name held one step earlier "
            "(`s2 = s1` before `s1 = s`, a filter's delay line) needs one first step more than that name: up to three "
            "steps run so, each under its own `if` (the loop may have fewer). So does the first step of a `range` loop whose body makes a float of an array "
            "that starts with a parameter's dtype (`u = 0.5 * (np.roll(u, 1) + np.roll(u, -1))` of an int `u`, `w /= w.sum()`, `w = w * (1 + r[t])` of two parameters' dtypes: a fori_loop "
            "needs one carry dtype, NumPy's `u` is a float from the first step on); a `jax.lax.scan` (NPJ307) has no such first "
            "step, and raises when tracing for an int `u`. One that stays a Python number (`total += i * i`, exact "
            "Python ints) keeps the loop as it is (fori_loop would make it an int32 that can overflow). "
            "Loops are converted only when the body has no `break`/`continue`/`return`/`raise`, does not grow a "
            "Python list (one that gets one value per step becomes `jax.lax.scan` instead, NPJ307), does not assign its own loop variable, the loop variable is not used after the loop, no "
            "name first set inside is used after it, and the index is never needed as a Python value (an `if` "
            "test, a slice bound other than a window below) nor in a NumPy call that would stay NumPy because its arguments are Python values "
            "(`np.zeros(i)`, `np.abs(i - 3)`); otherwise the function is left un-jitted (NPJ303). Float elementwise "
            "functions of the index (`np.sin(0.1 * i)`, `np.sqrt(i)`, also through names computed from it) are the "
            "exception: they become jax.numpy calls on the traced index, unless their arguments multiply, raise or "
            "shift integers (`np.sin(i * i)`: exact Python ints in NumPy, wrapping int32 in the loop). "
            "Their results are float32 unless `jax_enable_x64` is set, where NumPy computed in float64 (NPJ107). "
            "A carried value must keep "
            "its shape across iterations (an accumulator that starts as a Python scalar and becomes a vector "
            "makes `fori_loop` raise at trace time): a loop whose body rebinds a carried array to a value read "
            "through a bounded slice of a carried array (`values = p * values[:-1] + q * values[1:]`, a binomial "
            "tree) or built from one by a NumPy function that grows or shrinks arrays (`np.append`, "
            "`np.concatenate`, `np.diff` ...) stays a Python loop (a slice read inside a subscript write, "
            "`new[1:-1] = u[2:] - u[:-2]`, keeps the written array's shape). "
            "A slice at the index of a length known at trace time (`x[i:i + w]`, `x[i - k:i + k + 1]`, also beside "
            "integers and static slices: `img[i:i + 3, 1:-1]`, `x[:, j:j + w]`) becomes "
            "`jax.lax.dynamic_slice_in_dim(x, i, w, axis)` only when every step's window is proven inside the "
            "array: from the `range` bounds and the array's length along that axis (`x.shape[k]`, `len(x)`, "
            "`h, w = x.shape`, through names assigned once), the first start is at least 0 and the last stop at "
            "most the length (`range(n - w + 1)` with `n = len(x)`). NumPy cuts a window that runs past the end "
            "and wraps a negative start, where dynamic_slice would move the window, so any slice it cannot prove "
            "inside (or of another array, of a name assigned twice, with a step) keeps the loop as it is (NPJ303), "
            "as do writes into a window (`out[i:i + w] += v`). Such a loop runs under `if lower < upper:`: jax "
            "traces a fori_loop body even for zero steps, where a window longer than the array would raise. A "
            "negative window length (`w < 0`), which NumPy reads as a wrapped or empty slice, makes dynamic_slice "
            "raise at trace time. "
            "A prefix or suffix at the index, whose length changes with it (`x[:i]`, `L[i, :j]`, `A[:i, j]`, "
            "`U[i, i + 1:]`), is converted only inside a sum of elementwise terms that are zero past the cut: "
            "`a @ b`, `np.dot`, `np.inner`, `np.vdot`, `a.dot(b)` of two such operands, `np.sum(e)`, `e.sum()`, "
            "`np.linalg.norm(e)` without an axis, where `e` is built from prefixes with `+`, `-`, `*` (of two such "
            "terms, or by a number literal), `/` by a nonzero literal, `**` to a positive literal and "
            "`np.abs`/`np.square`/`np.sqrt`/`np.conj`. Each prefix becomes the "
            "whole axis with the elements past the cut replaced by zeros, `jnp.where(jax.lax.broadcasted_iota(int, "
            "L[i, :].shape, 0) < j, L[i, :], False)` (`>= i + 1` for a suffix; `False` is the zero of every dtype, "
            "so the operand keeps its dtype; every operand is masked, so an inf past the cut never meets a 0), and "
            "the sum runs over the full length: the same terms plus exact zeros, added in XLA's order, as NumPy's "
            "and JAX's dot differ anyway. All prefixes of one sum must be cut at the same bound on the same side and "
            "at the same axis of operands with as many written axes; the bound must be at least 0 at the first step "
            "(NumPy wraps a negative one). The work per step is the full length, not the prefix's. Prefixes of "
            "arrays whose full lengths differ where NumPy's prefixes agree (`L` of shape `(n, n + 1)`, `x` of "
            "`(n,)`) make the masked product raise at trace time; an operand with more axes than written "
            "broadcasts over the full length where NumPy broadcast a prefix of length 1 (`np.sum(a[:i] * B[:i])` "
            "with a 2-D `B`, which NumPy accepts only at a step where `i` is 1). Other uses of a prefix keep "
            "NPJ303: `np.mean` "
            "(it divides by the length), `np.max`, a prefix returned, stored, sorted or multiplied by a name "
            "(`c * x[:i]`: an inf `c` would make the zeros nan). "
            "`range(a, b, -1)` becomes `jax.lax.fori_loop(-a, -b, ...)` over `-i` (its bounds evaluated once), "
            "unless its first step would have to run before it or it collects values. A loop inside a converted "
            "loop may have bounds computed from the outer index (`for i in range(j + 1, n)`): fori_loop takes "
            "traced bounds (it becomes a `while_loop`: not reverse-differentiable). "
            "A loop indexing at its index a parameter whose hint or docstring admits a list (`Fs : list-like`) stays "
            "as it is (NPJ303): a Python list cannot take a traced index. "
            "So does one indexing at its index (`hist[i]`) a parameter the function uses only like a list "
            "(`len(hist)`, `hist[k]`, `for h in hist`; no NumPy call, arithmetic or attribute on it) and whose "
            "elements it uses as arrays (`np.dot(hist[i], g)`, `hist[i] @ v`; not `b[i] - s`): the caller may "
            "pass a list of arrays (L-BFGS histories) or an array, so a loop as long as it (`range(len(hist))`, "
            "`range(m - 1, -1, -1)` with `m = len(hist)`) is unrolled by jit, exact for both, and any other one "
            "(`range(n)`, `Fs[k]` in a loop over `Xs.shape[0]`) is NPJ303. `jnp.asarray(hist)` before "
            "a fori_loop would not be exact: it promotes a list of mixed dtypes to one, makes a list of Python "
            "floats a float64 array (NumPy keeps them weak: `np.dot(1.0, g)` of a float32 `g` is float32) and "
            "refuses a ragged list; unrolling compiles one copy of the body per element. "
            "A loop whose body indexes at the loop index (`x[i]`), or iterates over an array's rows, runs "
            "under `if lower < upper:` unless both bounds are integer literals: `x[i]` of an empty array raises "
            "while jax traces the body, where NumPy's loop runs no step."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def ema(x, alpha):
                out = np.zeros_like(x)
                out[0] = x[0]
                for t in range(1, x.shape[0]):
                    out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
                return out
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def ema(x, alpha):
                out = jnp.zeros_like(x)
                out = out.at[0].set(x[0])
                if 1 < x.shape[0]:
                    def _loop_body(t, out):
                        out = out.at[t].set(alpha * x[t] + (1 - alpha) * out[t - 1])
                        return out
                    out = jax.lax.fori_loop(1, x.shape[0], _loop_body, out)
                return out
            """,
            diagnostics=("NPJ305",),
        ),
        Example(
            title="iterating over rows, two carried values",
            before="""
            import numpy as np

            def running_stats(x):
                total = np.zeros(x.shape[1])
                sumsq = np.zeros(x.shape[1])
                for row in x:
                    total = total + row
                    sumsq = sumsq + row * row
                return total / len(x), sumsq / len(x)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def running_stats(x):
                total = jnp.zeros(x.shape[1])
                sumsq = jnp.zeros(x.shape[1])
                if 0 < len(x):
                    def _loop_body(_i, _carry):
                        total, sumsq = _carry
                        row = x[_i]
                        total = total + row
                        sumsq = sumsq + row * row
                        return total, sumsq
                    total, sumsq = jax.lax.fori_loop(0, len(x), _loop_body, (total, sumsq))
                return total / len(x), sumsq / len(x)
            """,
            diagnostics=("NPJ305",),
        ),
        Example(
            title="a Python number as a carry: not converted (it would become a 32-bit array), not jitted, left as NumPy code (NPJ304)",
            before="""
            import numpy as np

            def lcg_noise(x, seed=12345):
                out = np.zeros_like(x)
                s = seed
                for i in range(len(x)):
                    s = (s * 16807) % 2147483647
                    out[i] = x[i] + s / 2147483647.0
                return out
            """,
            after="""
            import numpy as np

            def lcg_noise(x, seed=12345):
                out = np.zeros_like(x)
                s = seed
                for i in range(len(x)):
                    s = (s * 16807) % 2147483647
                    out[i] = x[i] + s / 2147483647.0
                return out
            """,
            diagnostics=("NPJ304", "NPJ303"),
        ),
        Example(
            title="float functions of the index move to jax.numpy with the loop",
            before="""
            import numpy as np

            def chirp(x):
                out = np.zeros_like(x)
                for i in range(x.shape[0]):
                    out[i] = x[i] * np.sin(0.1 * i) + np.sqrt(i)
                return out
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def chirp(x):
                out = jnp.zeros_like(x)
                if 0 < x.shape[0]:
                    def _loop_body(i, out):
                        out = out.at[i].set(x[i] * jnp.sin(0.1 * i) + jnp.sqrt(i))
                        return out
                    out = jax.lax.fori_loop(0, x.shape[0], _loop_body, out)
                return out
            """,
            diagnostics=("NPJ305",),
        ),
        Example(
            title="an accumulator that starts as a Python number: the first step runs before the loop",
            before="""
            import numpy as np

            def weighted_sum(x, w):
                total = 0.0
                for i in range(x.shape[0]):
                    total = total + np.dot(x[i], w)
                return total
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def weighted_sum(x, w):
                w = jnp.asarray(w)
                total = 0.0
                if 0 < x.shape[0]:
                    i = 0
                    total = total + jnp.dot(x[i], w)
                    def _loop_body(i, total):
                        total = total + jnp.dot(x[i], w)
                        return total
                    total = jax.lax.fori_loop(1, x.shape[0], _loop_body, total)
                return total
            """,
            diagnostics=("NPJ305",),
        ),
        Example(
            title="a window at the index, proven inside the array: jax.lax.dynamic_slice_in_dim",
            before="""
            import numpy as np

            def rolling_mean(x, w):
                n = x.shape[0]
                out = np.zeros(n - w + 1)
                for i in range(n - w + 1):
                    out[i] = x[i:i + w].mean()
                return out

            def local_sums(img):
                h, w = img.shape
                out = np.zeros((h - 2, w - 2))
                for i in range(h - 2):
                    out[i] = img[i:i + 3, 1:-1].sum(axis=0)
                return out
            """,
            after="""
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, static_argnums=(1,))
            def rolling_mean(x, w):
                n = x.shape[0]
                out = jnp.zeros(n - w + 1)
                if 0 < n - w + 1:
                    def _loop_body(i, out):
                        out = out.at[i].set((jax.lax.dynamic_slice_in_dim(x, i, w) * 1.0).mean())
                        return out
                    out = jax.lax.fori_loop(0, n - w + 1, _loop_body, out)
                return out

            @jax.jit
            def local_sums(img):
                h, w = img.shape
                out = jnp.zeros((h - 2, w - 2))
                if 0 < h - 2:
                    def _loop_body(i, out):
                        out = out.at[i].set(jax.lax.dynamic_slice_in_dim(img, i, 3)[:, 1:-1].sum(axis=0))
                        return out
                    out = jax.lax.fori_loop(0, h - 2, _loop_body, out)
                return out
            """,
            diagnostics=("NPJ305", "NPJ305"),
        ),
        Example(
            title="a window that runs past the end (NumPy cuts it, dynamic_slice would not): not converted, left as NumPy code (NPJ304)",
            before="""
            import numpy as np

            def forward_sums(x):
                out = np.zeros_like(x)
                for i in range(x.shape[0]):
                    out[i] = x[i:i + 3].sum()
                return out
            """,
            after="""
            import numpy as np

            def forward_sums(x):
                out = np.zeros_like(x)
                for i in range(x.shape[0]):
                    out[i] = x[i:i + 3].sum()
                return out
            """,
            diagnostics=("NPJ304", "NPJ303", "NPJ303"),
        ),
        Example(
            title="sums over prefixes at the index (triangular solves): full-length operands, masked",
            before="""
            import numpy as np

            def forward_sub(L, b):
                n = L.shape[0]
                x = np.zeros(n)
                for i in range(n):
                    x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
                return x

            def back_sub(U, b):
                n = U.shape[0]
                x = np.zeros(n)
                for i in range(n - 1, -1, -1):
                    x[i] = (b[i] - np.dot(U[i, i + 1:], x[i + 1:])) / U[i, i]
                return x
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def forward_sub(L, b):
                b = jnp.asarray(b)
                n = L.shape[0]
                x = jnp.zeros(n)
                if 0 < n:
                    def _loop_body(i, x):
                        x = x.at[i].set((b[i] - jnp.where(jax.lax.broadcasted_iota(int, L[i, :].shape, 0) < i, L[i, :], False) @ jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) < i, x, False)) / L[i, i])
                        return x
                    x = jax.lax.fori_loop(0, n, _loop_body, x)
                return x

            @jax.jit
            def back_sub(U, b):
                b = jnp.asarray(b)
                n = U.shape[0]
                x = jnp.zeros(n)
                if -1 < n - 1:
                    def _loop_body(_minus_i, x):
                        i = -_minus_i
                        x = x.at[i].set((b[i] - jnp.dot(jnp.where(jax.lax.broadcasted_iota(int, U[i, :].shape, 0) >= i + 1, U[i, :], False), jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) >= i + 1, x, False))) / U[i, i])
                        return x
                    x = jax.lax.fori_loop(-(n - 1), 1, _loop_body, x)
                return x
            """,
            diagnostics=("NPJ305", "NPJ305"),
        ),
        Example(
            title="the index is needed as a Python value: not converted, not jitted (and a prefix of a new length at every step, which eager jax.numpy compiles anew each time: left as NumPy code)",
            before="""
            import numpy as np

            def prefix_means(x):
                out = np.zeros_like(x)
                for i in range(1, x.shape[0]):
                    out[i] = np.mean(x[:i])
                return out
            """,
            diagnostics=("NPJ304", "NPJ303"),
        ),
    )

    def rewrite_loop(self, original: cst.For, updated: cst.For, ctx: FileContext) -> list[cst.BaseStatement] | None:
        plan = loop_plan(ctx.function, ctx)
        if plan is None or original not in plan.loops:
            return None
        conversion = plan.loops[original]
        if conversion.collected:
            return None  # NPJ307: jax.lax.scan
        taken, body_name, index = loop_names(conversion, ctx)
        loop_index = index  # (a reversed range's fori_loop counts `_minus_i` instead)
        before: list[cst.BaseStatement] = []
        prologue: list[cst.BaseStatement] = []
        if conversion.kind == "range":
            lower, upper = range_bounds(updated)
        elif conversion.kind == "reversed":  # range(a, b, -1): i = -k for k in range(-a, -b), bounds evaluated once
            lower, upper = (negated(bound) for bound in range_bounds(updated))
            step = fresh(f"_minus_{index}", taken)
            taken.add(step)
            prologue.append(cst.parse_statement(f"{index} = -{step}\n"))
            index = step
        else:
            reads, upper, source_code = element_reads(conversion, updated, taken, before, index, ctx.use_jnp() if conversion.as_array else "jnp")
            prologue.extend(reads)
            lower = "0"
        start = lower
        carried = conversion.carried
        if len(carried) == 1:
            parameter, packed = carried[0], carried[0]
        else:
            parameter = fresh("_carry", taken)
            packed = f"({', '.join(carried)}{',' if len(carried) == 1 else ''})" if carried else "None"
            if carried:
                prologue.insert(0, cst.parse_statement(f"{', '.join(carried)} = {parameter}\n"))
        returned = ", ".join(carried) if carried else parameter
        block = updated.body
        first_steps: list[list[cst.BaseStatement]] = []
        for number in range(conversion.peel):  # the carried values get their array type from the first steps, run in Python
            step = [s.deep_clone() for s in block.body]
            if conversion.kind == "iter":  # `for sample in x`: the first step takes x[0]
                step.insert(0, cst.parse_statement(f"{conversion.value} = {source_code}[{number}]\n"))
            elif loop_index in names_in(block):  # the first value: range(a, b)'s a, also range(a, b, -1)'s
                first = range_bounds(updated)[0] if conversion.kind == "reversed" else lower
                first = _plus(first, -number if conversion.kind == "reversed" else number)
                step.insert(0, cst.parse_statement(f"{loop_index} = {first}\n"))
                step = [s.visit(_PythonTests(loop_index)) for s in step]
            first_steps.append(step)
        first_step = first_steps[0] if first_steps else []
        lower = _plus(lower, conversion.peel)
        body = block.with_changes(body=[*prologue, *block.body, cst.parse_statement(f"return {returned}\n")])
        function = cst.FunctionDef(
            name=cst.Name(body_name),
            params=cst.Parameters([cst.Param(cst.Name(index)), cst.Param(cst.Name(parameter))]),
            body=body,
            leading_lines=updated.leading_lines,
        )
        targets = ", ".join(carried) if carried else "_"
        call = f"jax.lax.fori_loop({lower}, {upper}, {body_name}, {packed})\n"
        after = cst.parse_statement(f"{targets} = {call}" if carried else call)
        report_conversion(self, ctx, original, taken, carry=carrying(carried) + (", its first step run before it" if len(first_steps) == 1 else f", its first {len(first_steps)} steps run before it" if first_steps else "")
                          + (f"; slices at `{index}` read with jax.lax.dynamic_slice_in_dim" if conversion.guard else "")
                          + (f"; sums over slices cut at `{conversion.index}` read the whole array, masked" if conversion.masked else ""))
        empty_reads = (_may_run_no_step(start, upper) and (conversion.kind != "range" or _indexes_at(block, index))
                       and not _bounds_traced(original, plan))
        if not first_step and not conversion.guard and not empty_reads:
            return [*before, function, after]
        # a first step to run, or a body whose slices fit the array only when the loop has a step, or that
        # indexes at the loop index an array that may be empty: jax traces the body even for zero steps, and
        # `x[i]` of an empty array raises there (NumPy's loop simply runs no step)
        # `range(a, b, -1)` has a step when b < a
        # (with several first steps, each runs only if the loop has it: `if a < b: step a; if a + 1 < b: step a + 1 ...`)
        inner: list[cst.BaseStatement] = [function.with_changes(leading_lines=()), after]
        for number in reversed(range(max(len(first_steps), 1))):
            if conversion.kind == "reversed":
                stop, first = range_bounds(updated)[1], range_bounds(updated)[0]
                test = f"{stop} < {_plus(first, -number)}"
            else:
                test = f"{_plus(start, number)} < {upper}"
            steps = first_steps[number] if first_steps else []
            inner = [cst.If(test=cst.parse_expression(test), body=cst.IndentedBlock([*steps, *inner]))]
        return [*before, inner[0].with_changes(leading_lines=updated.leading_lines)]

    def rewrite_subscript(self, original: cst.Subscript, updated: cst.Subscript, ctx: FileContext) -> cst.BaseExpression | None:
        """``x[i:i + w, 1:-1]`` in a converted loop -> ``jax.lax.dynamic_slice_in_dim(x, i, w)[:, 1:-1]``
        (analysis/slice_windows.py proves the window inside the array at every step)."""
        plan = loop_plan(ctx.function, ctx)
        if plan is not None and original in plan.prefixes:
            return masked_prefix(plan.prefixes[original], updated, ctx)
        if plan is None or original not in plan.windows:
            return None
        operand: cst.BaseExpression = updated.value
        elements = list(updated.slice)
        for window in plan.windows[original]:
            element = elements[window.position]
            start = element.slice.lower
            axis = [cst.Arg(cst.Integer(str(window.position)), keyword=cst.Name("axis"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))] if window.position else []
            operand = cst.Call(func=cst.parse_expression("jax.lax.dynamic_slice_in_dim"),
                               args=[cst.Arg(operand), cst.Arg(start), cst.Arg(cst.parse_expression(window.size)), *axis])
            elements[window.position] = element.with_changes(slice=cst.Slice(lower=None, upper=None))
        ctx.function.needs.add("jax")
        if all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None and e.slice.step is None
               for e in elements):
            return operand
        return updated.with_changes(value=operand, slice=elements)


def masked_prefix(mask: PrefixMask, updated: cst.Subscript, ctx: FileContext) -> cst.Call:
    """``L[i, :j]`` summed in a converted loop -> ``jnp.where(jax.lax.broadcasted_iota(int, L[i, :].shape, 0) < j,
    L[i, :], False)``: full length, zero past the cut along its axis (analysis/prefix_masks.py)."""
    elements = list(updated.slice)
    elements[mask.position] = elements[mask.position].with_changes(slice=cst.Slice(lower=None, upper=None))
    whole = all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None and e.slice.step is None
                for e in elements)
    full = updated.value if whole else updated.with_changes(slice=elements)
    code = cst.Module([]).code_for_node(full)
    kept = ">=" if mask.suffix else "<"
    ctx.function.needs.add("jax")
    return call(f"{ctx.use_jnp()}.where", cst.parse_expression(f"jax.lax.broadcasted_iota(int, {code}.shape, {mask.axis}) {kept} {mask.bound}"),
                full, cst.Name("False"))


def loop_names(conversion: LoopConversion, ctx: FileContext) -> tuple[set[str], str, str]:
    """The names taken in the function, a fresh one for the body function, and the loop index
    (a fresh one for ``for v in xs``, which has none)."""
    taken = names_in(ctx.function.node) | set(ctx.scope.module.bindings) | ctx.function.generated_names
    body_name = fresh("_loop_body", taken)
    taken.add(body_name)
    index = conversion.index
    if index == "_i":
        index = fresh("_i", taken)
        taken.add(index)
    return taken, body_name, index


def carrying(carried) -> str:
    return "carrying " + ", ".join(f"`{name}`" for name in carried) if carried else "nothing carried"


def report_conversion(rule: Rule, ctx: FileContext, loop: cst.For, taken: set[str], **fields: str) -> None:
    """Record the names the rewrite made up and the jax import it needs; report the converted loop."""
    ctx.function.generated_names.update(taken - names_in(ctx.function.node) - set(ctx.scope.module.bindings))
    ctx.function.needs.add("jax")
    line, col, _, _ = ctx.exact_span(loop)
    ctx.diagnostics.append(
        Diagnostic(rule.CODE, rule.SEVERITY, rule.MESSAGE.format(**fields), ctx.path, line, col, line, col + 3,
                   rule.DOC.use_instead)
    )


def range_bounds(loop: cst.For) -> tuple[str, str]:
    """``range(n)`` -> ("0", "n"); ``range(a, b[, step])`` -> ("a", "b")."""
    args = [cst.Module([]).code_for_node(a.value) for a in loop.iter.args]
    return ("0", args[0]) if len(args) == 1 else (args[0], args[1])


def negated(code: str) -> str:
    """``-1`` -> ``1``; ``n`` -> ``-n``; ``n - 1`` -> ``-(n - 1)``."""
    node = cst.parse_expression(code)
    if isinstance(node, cst.Integer) or (isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
                                         and isinstance(node.expression, cst.Integer)):
        return str(-int(code))
    simple = isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not node.lpar
    return f"-{code}" if simple else f"-({code})"


def element_reads(conversion: LoopConversion, loop: cst.For, taken: set[str], before: list[cst.BaseStatement],
                  index: str, jnp: str = "jnp") -> tuple[list[cst.BaseStatement], str, str]:
    """How a loop over rows (``for v in xs``, ``enumerate(xs)``, ``zip(xs, ys)``) reads its elements at ``index``:
    the statements, its trip count and (but for ``zip``) the sequence it reads."""
    if conversion.kind == "zip":  # zip stops at the shortest sequence
        codes = [sequence_source(conversion, arg.value, taken, before, jnp) for arg in loop.iter.args]
        reads = [cst.parse_statement(f"{name} = {code}[{index}]\n") for name, code in zip(conversion.zipped, codes)]
        lengths = [f"len({code})" for code in codes]
        return reads, lengths[0] if len(lengths) == 1 else f"min({', '.join(lengths)})", ""
    source = loop.iter.args[0].value if conversion.kind == "enumerate" else loop.iter
    code = sequence_source(conversion, source, taken, before, jnp)
    return [cst.parse_statement(f"{conversion.value} = {code}[{index}]\n")], f"len({code})", code


def sequence_source(conversion: LoopConversion, source: cst.BaseExpression, taken: set[str],
                    before: list[cst.BaseStatement], jnp: str = "jnp") -> str:
    """The array ``source`` a loop over rows iterates: its name, or a fresh one bound to it in ``before``."""
    source_code = cst.Module([]).code_for_node(source)
    if conversion.as_array:  # a parameter that may be a Python list: what NumPy's arithmetic makes of it
        source_code = f"{jnp}.asarray({source_code})"
    elif isinstance(source, cst.Name):
        return source_code
    sequence = fresh("_seq", taken)
    taken.add(sequence)
    before.append(cst.parse_statement(f"{sequence} = {source_code}\n"))
    return sequence


def _bounds_traced(loop: cst.For, plan) -> bool:
    """A loop inside another converted loop whose bounds use that loop's index or carried values
    (``range(j + 1, n)``): an ``if`` on them would need a Python bool of a traced value."""
    outer = [(node, c) for node, c in plan.loops.items() if node is not loop and contains(node.body, loop)]
    traced = {name for _, c in outer for name in (c.index, c.value, *c.carried) if name}
    # and the names the enclosing bodies compute from those (`w = weights[i]`, then `range(capacity, w - 1, -1)`)
    assigned = [(target, value) for node, _ in outer for target, value in _assignments(node.body)]
    grown = True
    while grown:
        grown = False
        for target, value in assigned:
            if target not in traced and traced & names_in(value):
                traced.add(target)
                grown = True
    return bool(traced & names_in(loop.iter))


def _assignments(block: cst.CSTNode) -> list[tuple[str, cst.BaseExpression]]:
    """``name = value`` (also ``a, b = value`` and ``name op= value``) anywhere in ``block``."""
    found: list[tuple[str, cst.BaseExpression]] = []
    for node in descendants(block):
        if isinstance(node, cst.Assign):
            found.extend((name, node.value) for t in node.targets for name in names_in(t.target))
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            found.extend((name, node.value) for name in names_in(node.target))
    return found


def _may_run_no_step(lower: str, upper: str) -> bool:
    """Unless both bounds are integer literals with ``lower < upper``."""
    return not (lower.lstrip("-").isdigit() and upper.lstrip("-").isdigit() and int(lower) < int(upper))


def _indexes_at(block: cst.BaseSuite, index: str) -> bool:
    """Whether the body subscripts something with an expression of the loop index."""
    return any(index in names_in(element) for node in subscripts(block) for element in node.slice)


class _PythonTests(cst.CSTTransformer):
    """In a step run before the fori_loop, where the loop index is a Python int: ``jax.lax.cond(k != 1, lambda: a,
    lambda: b)`` testing only the index -> ``(a if k != 1 else b)``. Python picks the branch as the original did; a
    jax.lax.cond would need both branches of one type, which the first step, where a carried name still holds a
    Python number (``lj = 1.0`` becoming ``lj * (t - xs[k])``), need not give (hunt57 L3)."""

    def __init__(self, index: str) -> None:
        self.index = index

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "cond" and isinstance(func.value, cst.Attribute)
                and func.value.attr.value == "lax" and len(updated.args) == 3
                and all(arg.keyword is None and not arg.star for arg in updated.args)):
            return updated
        test, first, second = (arg.value for arg in updated.args)
        if not (isinstance(first, cst.Lambda) and isinstance(second, cst.Lambda) and not first.params.params
                and not second.params.params and names_in(test) <= {self.index}):
            return updated
        return cst.IfExp(test=test, body=first.body, orelse=second.body,
                         lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def names_in(node: cst.CSTNode) -> set[str]:
    return {name.value for name in all_names(node)}


def fresh(base: str, taken: set[str]) -> str:
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}_{counter}", counter + 1
    return name


def _plus(bound: str, number: int) -> str:
    """``bound`` + ``number`` as code: ``"3"`` for ``"1"`` and 2, ``"n + 1"`` for ``"n"`` and 1."""
    if number == 0:
        return bound
    if bound.lstrip("-").isdigit():
        return str(int(bound) + number)
    if isinstance(cst.parse_expression(bound), (cst.IfExp, cst.BooleanOperation, cst.Comparison, cst.Lambda, cst.NamedExpr)):
        bound = f"({bound})"
    return f"{bound} + {number}" if number > 0 else f"{bound} - {-number}"
