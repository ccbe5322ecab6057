from __future__ import annotations

import libcst as cst

from np2jax.analysis.jit_plan import WhileConversion
from np2jax.analysis.while_loops import breaker_of, returning_breaker
from np2jax.context import FileContext, loop_plan
from np2jax.diagnostics import FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.rules.loop_to_fori import _may_run_no_step, carrying, fresh, names_in, range_bounds, report_conversion
from np2jax.rules.traced_conditional import comment_lines, truth_code


class LoopToWhile(Rule):
    CODE = "NPJ308"
    NAME = "loop-to-while"
    MESSAGE = "loop became `jax.lax.while_loop` ({carry})"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "In a function that gets `jax.jit`, turns a convergence loop into `jax.lax.while_loop`: a `while` loop "
            "whose test depends on traced values (`while np.max(np.abs(r)) > tol:`, `while it < max_iter and "
            "err > tol:`), and a `for i in range(a, b)` loop whose body breaks on such a test (`S1; if err < tol: "
            "break; S2`, one `if ...: break` at the top level of the body). The test becomes the condition "
            "function (`and`/`or`/`not` become `jnp.logical_*`), the body a nested function of the *carried* "
            "values: the names the body assigns that exist before the loop. A loop with a break carries the step "
            "counter and a `done` flag too: its condition is `i < b` and not done, its body runs S1, sets `done` "
            "to the test and runs S2, after which the names S2 assigns take back S1's values on the step that "
            "breaks (`jnp.where(done, before, after)`): what the Python loop leaves. A `while True:` loop that "
            "stops at one such `if test: break` (`S1; if test: break; S2`) always runs its first step: `S1` runs "
            "once before the loop, then `while not test: S2; S1` runs the same operations in the same order, so "
            "on the step that breaks the names `S1` sets have their new values and the ones `S2` sets their old "
            "ones, and a name `S1` sets and the code after the loop reads is bound, as in Python. A `return` "
            "in place of the `break` (`for it in range(max_iter): S1; if test: return v; S2` right before `return "
            "w`) is one too when it returns what the code after the loop would: `v` is `w` (the loop stops as at "
            "a `break`), or `S2` only assigns names and `w` with the names `S2` sets to other names replaced by "
            "those is `v` (`if err < tol: return x_new` ... `x = x_new` ... `return x`, or `return lam_new, v` "
            "... `lam = lam_new` ... `return lam, v`): the loop then stops after that step's `S2`, whose "
            "assignments give `w` the value `v` had."
        ),
        why=(
            "Under `jax.jit` a Python loop cannot stop at a step it only knows at run time: the test is a traced "
            "value. `while_loop` runs the same operations in the same order, and compiles the body once whatever "
            "the trip count."
        ),
        use_instead="nothing to do: the loop is converted for you",
        known_problems=(
            "A carried name must start as an array (as for NPJ305), or as a Python number of the kind (bool, int, "
            "float: `lam = 0.0`, `err = np.inf`, `it = 0`) of every value the loop gives it: while_loop carries "
            "it as a 0-d array of the body's dtype. A loop that runs no step then returns that start value as a "
            "0-d array (NumPy: the Python number), of the same value and kind; a start value of another kind "
            "(`err = 0` with a float body: `0.0` where NumPy returned `0`) keeps the loop as it is (in a `while "
            "True` loop, a name `S1` sets before reading it starts from the first step's value instead). An int counter "
            "(`it += 1`) becomes int32 unless `jax_enable_x64` is set (NumPy: a Python int): exact while it stays "
            "below 2**31, as it does when bounded by `max_iter`. A float value the body gives a carry that starts "
            "as a Python float is taken for a real one (`np.mean` of a complex array would make the no-step "
            "result complex). "
            "Not converted (NPJ301/NPJ303 say why, and the function is left un-jitted): a test np2jax cannot tell "
            "is 0-d (NumPy raises on a longer array; while_loop would raise when tracing), `in`/`is` tests, a test "
            "that assigns a name (`:=`), an "
            "`and`/`or` whose right side may have side effects (while_loop evaluates both), a body with "
            "`continue`/`raise`, a `return` other than the one above (another value, not right before the loop's "
            "final `return`, or in a loop inside a block), another `break` (or a `break` under a nested `if`), list growth or "
            "attribute writes, an `else` clause, a name first set inside the loop and used after it or in the "
            "test (unbound when the loop runs no step; in a `while True` loop: a name first set after the "
            "`break` test, or only in some steps), a carry that starts as a Python number and is divided with "
            "`/=` (an int that becomes a float) or raised with `**=`, a loop variable used after the loop, a `range` with a step, or a loop whose carried values "
            "are then needed as Python values (`x[:it]`, `if it == max_iter:` after it). A body that changes a "
            "carried value's shape or dtype makes while_loop raise at trace time (NumPy lets it). The body runs "
            "when jax traces it even if the loop runs no step: a loop with a break whose body indexes at its "
            "counter runs under `if a < b:`. The first step of a `while True` loop is written twice (before the "
            "loop and at the end of its body), and traced twice."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def newton_sqrt(a: np.ndarray, tol=1e-6):
                x = a.copy()
                while np.max(np.abs(x * x - a)) > tol:
                    x = 0.5 * (x + a / x)
                return x
            """,
            after="""
            import numpy as np
            import jax
            import jax.numpy as jnp

            @jax.jit
            def newton_sqrt(a: np.ndarray, tol=1e-6):
                x = a.copy()
                def _loop_cond(x):
                    return jnp.max(jnp.abs(x * x - a)) > tol
                def _loop_body(x):
                    x = 0.5 * (x + a / x)
                    return x
                x = jax.lax.while_loop(_loop_cond, _loop_body, x)
                return x
            """,
            diagnostics=("NPJ308",),
        ),
        Example(
            title="a counter and a residual that start as Python numbers",
            before="""
            import numpy as np

            def jacobi(A, b, tol=1e-6, max_iter=500):
                D = np.diag(A)
                R = A - np.diagflat(D)
                x = np.zeros_like(b)
                err = np.inf
                it = 0
                while it < max_iter and err > tol:
                    x_new = (b - R @ x) / D
                    err = np.linalg.norm(x_new - x)
                    x = x_new
                    it += 1
                return x, it
            """,
            after="""
            import numpy as np
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, static_argnums=(3,))
            def jacobi(A, b, tol=1e-6, max_iter=500):
                A = jnp.asarray(A)
                b = jnp.asarray(b)
                D = jnp.diag(A)
                R = A - jnp.diagflat(D)
                x = jnp.zeros_like(b)
                err = np.inf
                it = 0
                def _loop_cond(_carry):
                    err, x, it = _carry
                    return jnp.logical_and(it < max_iter, err > tol)
                def _loop_body(_carry):
                    err, x, it = _carry
                    x_new = (b - R @ x) / D
                    err = jnp.linalg.norm(x_new - x)
                    x = x_new
                    it += 1
                    return err, x, it
                err, x, it = jax.lax.while_loop(_loop_cond, _loop_body, (err, x, it))
                return x, it
            """,
            diagnostics=("NPJ308",),
        ),
        Example(
            title="a `for` loop that breaks: the counter and a done flag join the carry",
            before="""
            import numpy as np

            def power_iteration(A, iters=100, tol=1e-6):
                v = np.ones(A.shape[0])
                lam = 0.0
                for _ in range(iters):
                    w = A @ v
                    new = np.linalg.norm(w)
                    v = w / new
                    if abs(new - lam) < tol:
                        break
                    lam = new
                return lam, v
            """,
            after="""
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, static_argnums=(1,))
            def power_iteration(A, iters=100, tol=1e-6):
                v = jnp.ones(A.shape[0])
                lam = 0.0
                def _loop_cond(_carry):
                    return jnp.logical_and(_carry[0] < iters, jnp.logical_not(_carry[1]))
                def _loop_body(_carry):
                    _i, _done, v, lam = _carry
                    w = A @ v
                    new = jnp.linalg.norm(w)
                    v = w / new
                    _done = abs(new - lam) < tol
                    _kept_lam = lam
                    lam = new
                    lam = jnp.where(_done, _kept_lam, lam)
                    return _i + 1, _done, v, lam
                v, lam = jax.lax.while_loop(_loop_cond, _loop_body, (0, False, v, lam))[2:]
                return lam, v
            """,
            diagnostics=("NPJ308",),
        ),
        Example(
            title="a `for` loop that returns on convergence what the code after it returns",
            before="""
            import numpy as np

            def jacobi_until(A, b, x0, tol=1e-5, max_iter=200):
                x = np.asarray(x0, dtype=float)
                d = np.diag(A)
                for it in range(max_iter):
                    x_new = (b - A @ x + d * x) / d
                    if np.max(np.abs(x_new - x)) < tol:
                        return x_new
                    x = x_new
                return x
            """,
            after="""
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, static_argnums=(4,))
            def jacobi_until(A, b, x0, tol=1e-5, max_iter=200):
                A = jnp.asarray(A)
                b = jnp.asarray(b)
                x = jnp.asarray(x0, dtype=float)
                d = jnp.diag(A)
                def _loop_cond(_carry):
                    return jnp.logical_and(_carry[0] < max_iter, jnp.logical_not(_carry[1]))
                def _loop_body(_carry):
                    it, _done, x = _carry
                    x_new = (b - A @ x + d * x) / d
                    _done = jnp.max(jnp.abs(x_new - x)) < tol
                    x = x_new
                    return it + 1, _done, x
                x = jax.lax.while_loop(_loop_cond, _loop_body, (0, False, x))[2]
                return x
            """,
            diagnostics=("NPJ308",),
        ),
        Example(
            title="`while True` with a break: its first step runs before the loop",
            before="""
            import numpy as np

            def fixed_point(x0: np.ndarray, tol=1e-6):
                x = x0.copy()
                while True:
                    x_new = np.cos(x)
                    if np.max(np.abs(x_new - x)) < tol:
                        break
                    x = x_new
                return x_new
            """,
            after="""
            import numpy as np
            import jax
            import jax.numpy as jnp

            @jax.jit
            def fixed_point(x0: np.ndarray, tol=1e-6):
                x = x0.copy()
                x_new = jnp.cos(x)
                def _loop_cond(_carry):
                    x_new, x = _carry
                    return jnp.logical_not(jnp.max(jnp.abs(x_new - x)) < tol)
                def _loop_body(_carry):
                    x_new, x = _carry
                    x = x_new
                    x_new = jnp.cos(x)
                    return x_new, x
                x_new, x = jax.lax.while_loop(_loop_cond, _loop_body, (x_new, x))
                return x_new
            """,
            diagnostics=("NPJ308",),
        ),
        Example(
            title="a name first set inside the loop and used after it: not converted, not jitted",
            before="""
            import numpy as np

            def newton_steps(a: np.ndarray, tol=1e-6):
                x = a.copy()
                while np.max(np.abs(x * x - a)) > tol:
                    step = 0.5 * (a / x - x)
                    x = x + step
                return x, step
            """,
            diagnostics=("NPJ301",),
        ),
    )

    def rewrite_loop(self, original, updated, ctx: FileContext) -> list[cst.BaseStatement] | None:
        plan = loop_plan(ctx.function, ctx)
        conversion = plan.whiles.get(original) if plan is not None else None
        if conversion is None:
            return None
        taken = names_in(ctx.function.node) | set(ctx.scope.module.bindings) | ctx.function.generated_names
        cond_name, body_name = _fresh(taken, "_loop_cond", "_loop_body")
        if conversion.kind == "while":
            statements = self._while(conversion, updated, ctx, taken, cond_name, body_name)
        elif conversion.kind == "until":
            statements = self._until(conversion, updated, ctx, taken, cond_name, body_name)
        else:
            statements = self._break(conversion, updated, ctx, taken, cond_name, body_name)
        first_step = ", its first step run before it" if conversion.kind == "until" and not isinstance(statements[0], cst.FunctionDef) else ""
        first_step += ", its `if ...: return` ending it" if conversion.returns else ""
        report_conversion(self, ctx, original, taken, carry=carrying(conversion.carried) + first_step)
        statements[0] = statements[0].with_changes(leading_lines=[*updated.leading_lines, *statements[0].leading_lines])
        return statements

    def _while(self, conversion: WhileConversion, updated: cst.While, ctx: FileContext, taken: set[str],
               cond_name: str, body_name: str) -> list[cst.BaseStatement]:
        carried = list(conversion.carried)
        parameter, unpack = _parameter(carried, taken)
        packed = _packed(carried)
        test = truth_code(conversion.truth, updated.test, ctx)
        cond = cst.parse_statement(f"def {cond_name}({parameter}):\n{unpack}    return {test}\n")
        block = updated.body
        body = _function(body_name, parameter, unpack, block, list(block.body), f"return {', '.join(carried)}")
        call = cst.parse_statement(f"{', '.join(carried)} = jax.lax.while_loop({cond_name}, {body_name}, {packed})\n")
        return [cond, body, call]

    def _until(self, conversion: WhileConversion, updated: cst.While, ctx: FileContext, taken: set[str],
               cond_name: str, body_name: str) -> list[cst.BaseStatement]:
        """``while True: S1; if test: break; S2`` -> ``S1`` (the first step), then ``while not test: S2; S1``."""
        carried = list(conversion.carried)
        parameter, unpack = _parameter(carried, taken)
        statements = list(updated.body.body)
        breaker = breaker_of(updated)
        position = statements.index(breaker)
        first, then = statements[:position], statements[position + 1:]
        truth, test = conversion.truth, breaker.test
        if truth.how == "not":  # `if not ok: break` -> `ok`
            test = truth_code(truth.parts[0], test.expression, ctx)
        else:
            test = f"{ctx.use_jnp()}.logical_not({truth_code(truth, test, ctx)})"
        cond = cst.parse_statement(f"def {cond_name}({parameter}):\n{unpack}    return {test}\n")
        cond = cond.with_changes(leading_lines=[*breaker.leading_lines, *comment_lines(breaker)])
        body = _function(body_name, parameter, unpack, updated.body, [*then, *first], f"return {', '.join(carried)}")
        call = cst.parse_statement(f"{', '.join(carried)} = jax.lax.while_loop({cond_name}, {body_name}, {_packed(carried)})\n")
        return [*(statement.deep_clone() for statement in first), cond, body, call]

    def _break(self, conversion: WhileConversion, updated: cst.For, ctx: FileContext, taken: set[str],
               cond_name: str, body_name: str) -> list[cst.BaseStatement]:
        jnp = ctx.use_jnp()
        counter = conversion.index or _fresh(taken, "_i")[0]
        (done,) = _fresh(taken, "_done")
        carried = list(conversion.carried)
        lower, upper = range_bounds(updated)
        before: list[cst.BaseStatement] = []
        if names_in(cst.parse_expression(upper)) & {*carried, counter, done}:
            (stop,) = _fresh(taken, "_stop")  # Python evaluates the bounds once
            before.append(cst.parse_statement(f"{stop} = {upper}\n"))
            upper = stop
        names = [counter, done, *carried]
        parameter, unpack = _parameter(names, taken)
        test = f"{jnp}.logical_and({parameter}[0] < {upper}, {jnp}.logical_not({parameter}[1]))"
        cond = cst.parse_statement(f"def {cond_name}({parameter}):\n    return {test}\n")
        block = updated.body
        statements = list(block.body)
        breaker = returning_breaker(updated)[0] if conversion.returns else breaker_of(updated)  # type: ignore[index]
        position = statements.index(breaker)
        kept = dict(zip(conversion.after, _fresh(taken, *(f"_kept_{name}" for name in conversion.after))))
        flag = cst.parse_statement(f"{done} = {truth_code(conversion.truth, breaker.test, ctx)}\n")
        middle = [flag.with_changes(leading_lines=[*breaker.leading_lines, *comment_lines(breaker)])]
        middle += [cst.parse_statement(f"{copy} = {name}\n") for name, copy in kept.items()]
        restore = [cst.parse_statement(f"{name} = {jnp}.where({done}, {copy}, {name})\n") for name, copy in kept.items()]
        steps = [*statements[:position], *middle, *statements[position + 1:], *restore]
        body = _function(body_name, parameter, unpack, block, steps, f"return {counter} + 1, {', '.join(names[1:])}")
        init = f"({lower}, False, {', '.join(carried)})"
        call = f"jax.lax.while_loop({cond_name}, {body_name}, {init})"
        if not carried:
            after = cst.parse_statement(f"{call}\n")
        elif len(carried) == 1:
            after = cst.parse_statement(f"{carried[0]} = {call}[2]\n")
        else:
            after = cst.parse_statement(f"{', '.join(carried)} = {call}[2:]\n")
        loop = [cond, body, after]
        if conversion.guard and _may_run_no_step(lower, range_bounds(updated)[1]):
            # jax traces the body even for zero steps, where `x[i]` of an empty array raises
            return [*before, cst.If(test=cst.parse_expression(f"{lower} < {upper}"), body=cst.IndentedBlock(loop))]
        return [*before, *loop]


def _fresh(taken: set[str], *bases: str) -> list[str]:
    names = []
    for base in bases:
        name = fresh(base, taken)
        taken.add(name)
        names.append(name)
    return names


def _parameter(names: list[str], taken: set[str]) -> tuple[str, str]:
    """The body function's parameter and the line that unpacks it ("" for one carried name)."""
    if len(names) == 1:
        return names[0], ""
    parameter = fresh("_carry", taken)
    return parameter, f"    {', '.join(names)} = {parameter}\n"


def _packed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"({', '.join(names)})"


def _function(name: str, parameter: str, unpack: str, block: cst.BaseSuite, statements: list, returned: str) -> cst.FunctionDef:
    prologue = [cst.parse_statement(unpack.strip() + "\n")] if unpack else []
    body = block.with_changes(body=[*prologue, *statements, cst.parse_statement(f"{returned}\n")])
    return cst.FunctionDef(name=cst.Name(name), params=cst.Parameters([cst.Param(cst.Name(parameter))]), body=body)
