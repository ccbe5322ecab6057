from __future__ import annotations

import libcst as cst

from np2jax.analysis.ndarray_subclasses import NDARRAY_BASE
from np2jax.context import UNSTABLE, FileContext, FunctionInfo
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.propagation import class_method_calls
from np2jax.rule import Example, Rule, RuleDoc


class CallsUnmigratedFunction(Rule):
    CODE = "NPJ202"
    NAME = "calls-unmigrated-function"
    MESSAGE = "calls `{callee}`, which stays NumPy code: this function stays NumPy too"
    CLASS_MESSAGE = "`{callee}` stays NumPy code and shares `self` with this method: the class stays NumPy"
    FAMILY_MESSAGE = (
        "`{callee}` stays NumPy code and shares `self` with this method through inheritance "
        "(`{theirs}` and `{ours}` derive one from the other, or from a common base class): the classes stay NumPy"
    )
    REFERENCE_MESSAGE = "uses `{callee}`, which stays NumPy code, as a value (whoever calls it runs NumPy code): this function stays NumPy too"
    HOLDER_MESSAGE = "uses `{holder}`, which holds `{callee}`, a function that stays NumPy code: this function stays NumPy too"
    CREATE_MESSAGE = "creates a `{created}`, whose base class `{callee}` stays NumPy code: this function stays NumPy too"
    RESULT_MESSAGE = ("`{callee}` stays NumPy code and writes in place into what this function returns (or reads it "
                      "with a boolean mask, indexes it in a loop, makes masks of it in a loop, adds it into another array, or views it as an ndarray "
                      "subclass, `.view(cls)`): this function "
                      "stays NumPy too")
    MODULE_MESSAGE = "calls `{callee}`, which stays NumPy code in {where}: this function stays NumPy too"
    MODULE_CLASS_MESSAGE = "{callee} in another module, stays NumPy code and shares `self` with this method: the class stays NumPy"
    MODULE_RESULT_MESSAGE = "{callee}, in another module, writes in place into what this function returns: this function stays NumPy too"
    UNSTABLE_MESSAGE = (
        "np2jax could not migrate this function to a fixed point (a second pass would rewrite it again, a bug in "
        "np2jax): it stays NumPy code, the rest of the file migrates"
    )
    ARGUMENT_MESSAGE = (
        "`{callee}` hands it `{passed}`, which stays NumPy code, to call on its arrays: this function stays NumPy too"
    )
    MODULE_ATTRIBUTE_MESSAGE = (
        "{callee}, in another module, writes `.{name}` of an object in place: what this function stores in `.{name}` "
        "must stay a NumPy array, so it stays NumPy code"
    )
    ATTRIBUTE_MESSAGE = (
        "{callee} writes `.{name}` of an object in place: what this function stores in `.{name}` must stay a NumPy "
        "array (a JAX array would not change, or `op=` would rebind the attribute), so it stays NumPy code"
    )
    NDARRAY_MESSAGE = (
        "`{name}` derives from np.ndarray: a jax.Array cannot be subclassed nor viewed as a subclass, so the "
        "class stays NumPy code"
    )
    TOP_LEVEL_RESULT_MESSAGE = "module-level code, which stays NumPy code, writes in place into what this function returns: this function stays NumPy too"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports functions that call a function or method of the same module that np2jax leaves untouched, "
            "or use one as a value (`apply(inc, x)`, `f=inc` as a default, `{\"f\": inc}`: a callback), also "
            "through a module-level value that holds it (`HANDLERS = {\"inc\": inc}`), "
            "or create an object of a class one of whose methods (or whose base classes' methods) it leaves untouched; "
            "the other methods of a class one of whose methods is left untouched (unless it is left untouched for "
            "its own code and writes nothing in place: a constructor drawing from `np.random` that only binds "
            "attributes, or a static method, which shares no `self`; static methods are not held back either, but a "
            "call of one left NumPy code through its class, `Norm.center(w)`, holds its caller back), and of "
            "every class of the module "
            "it shares `self` with through inheritance (`class Sub(Base)`: its base classes and subclasses, "
            "transitively, also through several bases); a method left as it was (nothing in it needed rewriting) that "
            "updates the object's arrays with `op=` through a second reference (`x = self.x; x += 2`, "
            "`self.y = self.x; self.y += 1`) is NumPy code too and keeps its classes NumPy; and functions whose result a "
            "function left untouched (or left as it was) writes into in place (`p = f(z); p[i] -= 1`, `p.sort()`, "
            "`np.fill_diagonal(p, 0)`, `np.add.at(p, i, 1)`, `out=p`), also into the arrays of an object it returns "
            "(`b = make_box(n); b.F[0, 1] = 0`) or, for a class's `__init__`, sets up (`m = Model(n); m.W[0] = 0`), "
            "or once stored in an attribute, written in another method or function (`self.P = predict(self.P)` or "
            "`self.x, self.P = update(z)`, then `self.P *= k` or `self.P[0] = 0`: on a JAX array `*=` rebinds the "
            "attribute and whoever holds the old array keeps its values; an array a parameter brings, stored "
            "`self.P = P0` in `__init__`, counts as written into by `__init__`), or into a new array computed "
            "from it by a method, an operator or a comparison (`s = p.sum(axis=1); s[s == 0] = 1`, `m = p > 0`, "
            "also `np.sum(p, axis=0)` and read-only views such as `np.asarray(p)`), "
            "or through another reference (`y = p; y += 1`, `x = b.x; x += 1`, `for w in ws: w -= g`, "
            "`for v in [f(a), f(b)]: v += 1`, `p, q = f(a), f(b); p[0] = 0`), or adds it in place into an array "
            "another reference holds (`total += f(x)` on a parameter or `self.total`: with a JAX array on the right, "
            "NumPy's in-place add gives way to JAX's, which rebinds the name), or reads it with a NumPy boolean mask "
            "(`nz = np.logical_not(np.isclose(n, 0)); n[nz]`: a 0-d JAX array indexed with `np.True_` raises inside "
            "jax), or indexes it in a loop (`for i in range(1, n): phi[i] = cov[i]`: each read of a JAX array is a "
            "dispatch to XLA, 100-1000x NumPy's time), also inside a callback it hands the "
            "result to along with a function that writes into its parameters (`apply(inc, f(a))`), or to a function "
            "that adds its parameter into another one in place, also inside a list or through `list(...)` "
            "(`sgd([w], [grad(w, x)])` with `for p, g in zip(params, grads): p -= lr * g`), also once added in place "
            "into a name (`g *= f(x)` makes `g` a JAX array); and, "
            "transitively, the functions whose results such a function hands back (`b.F = build(n); return b`), and "
            "what its callers hand it that it hands back (`def scale(x): return 2 * x`, then `p = scale(f(a)); p[0] = 0`). "
            "Module-level code is NumPy code: it counts as such a writer (`Y = make(3)` then `Y[0] = 5` at module "
            "level), and a module-level name holding a result carries it into the functions that write into it "
            "(`BUF = make(3)`, then `BUF[0] = v` or `a = BUF; a += 1` in a function). "
            "Code that writes an attribute of an object other than `self` in place (`state.coords += d`, "
            "`old.coords[m] = v`) keeps the functions that store attributes of that name NumPy code (matched by name), "
            "in its module and, for NumPy code, in the other modules migrated with it. "
            "A function handed a function that stays NumPy code as an argument (`frechet(x, inv=check)`, also "
            "one of another module) calls it on its arrays: it stays NumPy code too. "
            "The methods of a class deriving from `np.ndarray` (directly or through classes of the module) stay NumPy "
            "code: a jax.Array cannot be subclassed nor viewed as one (`np.array(v).view(cls)`). "
            "When several files are migrated together, the same holds across modules (np2jax/project.py): calls "
            "through imports (absolute, relative, re-exported by a package's `__init__`, star imports, also in files "
            "that never mention NumPy) to a function "
            "another file leaves untouched (or, in a file that never mentions NumPy, one that writes into its "
            "arguments), NumPy code in another file that writes into a function's result (also through module-level "
            "names, and handed on by a function of a third file: `def passthru(n): return make(n)`), and a class and "
            "its base class in another file (they share `self`). Also a function whose migration a second pass "
            "would change again (the engine's safety net; a bug in np2jax to report): it is left as it was and "
            "the rest of its file migrates."
        ),
        why=(
            "A function that is left as NumPy code (because of an error-level diagnostic) may mutate its "
            "arguments or need NumPy arrays. A migrated caller would hand it immutable JAX arrays and rely on "
            "writes that no longer happen. So the caller is left untouched too, transitively; a function that hands "
            "it to other code as a callback does the same through that code. Methods of one "
            "class pass arrays to each other through `self`, and so do a class's methods and those of its base "
            "classes and subclasses (a `Sub` object runs `Base.__init__`, which creates the arrays `Sub`'s methods "
            "write into): a class, with the classes it inherits from or that inherit from it, migrates as a whole "
            "or not at all. And NumPy "
            "code that writes into a function's result needs a mutable NumPy array back, not a JAX array."
        ),
        use_instead="fix the callee first (see its own diagnostics); its callers then migrate on the next run",
        known_problems=(
            "Only direct calls and references by name (functions, and classes created by name, also imported ones) "
            "and `self.`/`cls.` method calls within a module are followed; functions stored as values at module "
            "level in other ways (`HANDLERS[\"a\"] = inc`, `HANDLERS.append(inc)`) and bound methods passed as callbacks (`apply(obj.inc, x)`) are not; "
            "only base classes named directly in the same module (`class Sub(Base)`, not `class Sub(mod.Base)` or "
            "a class from another module) make a family; attributes are told apart by name only (a write into `a.P` "
            "counts for every result stored in an attribute named `P`: that only keeps more functions NumPy), and "
            "results stored in attributes are followed within a module only; methods called on objects from other "
            "modules and code outside the files migrated together are not followed."
        ),
    )
    EXAMPLES = (
        Example(
            title="a subclass of np.ndarray",
            before="""
            import numpy as np

            class Vec3(np.ndarray):
                def __new__(cls, value):
                    return np.array(value, dtype=float).view(cls)

                def norm(self):
                    return np.sqrt(np.sum(self * self))
            """,
            diagnostics=("NPJ202", "NPJ202"),
        ),
        Example(
            before="""
            import numpy as np

            def reset(buffer):
                buffer[0] = 0.0
                return buffer.sum()

            def step(x):
                y = np.cumsum(x)
                reset(y)
                return y
            """,
            diagnostics=("NPJ201", "NPJ202"),
        ),
        Example(
            title="a module-level name holding a result, written by a function",
            before="""
            import numpy as np

            def make(n):
                return np.zeros(n) + 1.0

            BUF = make(3)

            def poke(v):
                BUF[0] = v
                return BUF.sum()
            """,
            diagnostics=("NPJ202", "NPJ201"),
        ),
        Example(
            title="a class migrates as a whole",
            before="""
            import numpy as np

            class Buffer:
                def __init__(self, data):
                    self.data = data

                def total(self):
                    return np.sum(self.data)

                def clear(self, i):
                    self.data[i] = 0.0
            """,
            diagnostics=("NPJ201", "NPJ202", "NPJ202"),
        ),
        Example(
            title="a subclass shares `self` with its base class",
            before="""
            import numpy as np

            class Model:
                def __init__(self, n):
                    self.w = np.zeros(n)

                def norm(self):
                    return np.sqrt(np.sum(self.w ** 2))

            class Trained(Model):
                def nudge(self, g):
                    w = self.w
                    w -= 0.1 * g
            """,
            diagnostics=("NPJ201", "NPJ202", "NPJ202"),
        ),
        Example(
            title="a function that stays NumPy, passed as a callback",
            before="""
            import numpy as np

            def clip_inplace(v):
                v[v > 1.0] = 1.0

            def apply_all(f, arrays):
                for a in arrays:
                    f(a)
                return arrays

            def clipped(xs):
                return apply_all(clip_inplace, [np.asarray(x, dtype=float) for x in xs])
            """,
            diagnostics=("NPJ201", "NPJ202", "NPJ202"),
        ),
        Example(
            title="creating an object of a class that stays NumPy",
            before="""
            import numpy as np

            class Accumulator:
                def __init__(self, total):
                    self.total = total

                def add(self, x):
                    self.total += x

            def running_total(xs):
                total = np.zeros(xs.shape[1])
                acc = Accumulator(total)
                for x in xs:
                    acc.add(x)
                return total
            """,
            diagnostics=("NPJ202", "NPJ201", "NPJ202"),
        ),
        Example(
            title="NumPy code that writes into a function's result keeps that function NumPy",
            before="""
            import numpy as np

            def softmax(z):
                e = np.exp(z - np.max(z))
                return e / np.sum(e)

            def gradient_step(W, x, label):
                p = softmax(x @ W)
                p[label] -= 1.0
                W -= 0.1 * np.outer(x, p)
                return np.sum(p * p)
            """,
            diagnostics=("NPJ202", "NPJ201"),
        ),
        Example(
            title="a result stored in an attribute and updated in place by another method",
            before="""
            import numpy as np

            def predict(P, F, q):
                return F @ P @ F.T + q * np.eye(len(P))

            class Filter:
                def __init__(self, P0):
                    self.P = np.array(P0, dtype=float)
                    self.F = np.eye(len(P0))

                def step(self):
                    self.P = predict(self.P, self.F, 0.1)

                def inflate(self, k):
                    self.P *= k
            """,
            diagnostics=("NPJ202", "NPJ202", "NPJ202", "NPJ201"),
        ),
        Example(
            title="the arrays of a dict a function returns, updated through a loop variable",
            before="""
            import numpy as np

            def init_params(n):
                return {"W": np.eye(n), "b": np.zeros(n)}

            def nudged(n, step=0.1):
                params = init_params(n)
                for p in params.values():
                    p += step
                return params["W"] @ params["b"]
            """,
            diagnostics=("NPJ202", "NPJ201"),
        ),
    )

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        forced = ctx.forced_unsupported.get(info.qualname)
        if forced is None or forced.via_caller:  # via_caller: its own writes are reported (NPJ201)
            return
        if forced.callee in (UNSTABLE, NDARRAY_BASE):
            line, col, end_line, end_col = ctx.def_name_span(info)
            message, use_instead = (
                (self.UNSTABLE_MESSAGE, "nothing to do: the function is left as it is (please report it)")
                if forced.callee == UNSTABLE else
                (self.NDARRAY_MESSAGE.format(name=info.class_name), "hold a jax.Array in an attribute instead of deriving from np.ndarray")
            )
            ctx.diagnostics.append(Diagnostic(self.CODE, self.SEVERITY, message, ctx.path, line, col, end_line, end_col, use_instead))
        elif forced.via_class or forced.via_result:
            line, col, end_line, end_col = ctx.def_name_span(info)
            if forced.via_module:
                message = (self.MODULE_CLASS_MESSAGE if forced.via_class else self.MODULE_RESULT_MESSAGE).format(callee=forced.callee)
            elif forced.callee == "<module>":
                message = self.TOP_LEVEL_RESULT_MESSAGE
            elif forced.via_class and forced.callee.rpartition(".")[0] != info.class_name:
                theirs = forced.callee.rpartition(".")[0]
                message = self.FAMILY_MESSAGE.format(callee=forced.callee, theirs=theirs, ours=info.class_name)
            else:
                message = (self.CLASS_MESSAGE if forced.via_class else self.RESULT_MESSAGE).format(callee=forced.callee)
            ctx.diagnostics.append(
                Diagnostic(self.CODE, self.SEVERITY, message, ctx.path, line, col, end_line, end_col, self.DOC.use_instead)
            )
        elif forced.via_argument or forced.attribute:
            line, col, end_line, end_col = ctx.def_name_span(info)
            message = (
                self.ARGUMENT_MESSAGE.format(callee=forced.callee, passed=forced.via_argument) if forced.via_argument
                else (self.MODULE_ATTRIBUTE_MESSAGE if forced.via_module else self.ATTRIBUTE_MESSAGE).format(
                    callee=forced.callee, name=forced.attribute)
            )
            ctx.diagnostics.append(
                Diagnostic(self.CODE, self.SEVERITY, message, ctx.path, line, col, end_line, end_col, self.DOC.use_instead)
            )
        elif forced.via_module:
            message = self.MODULE_MESSAGE.format(callee=forced.callee, where=forced.where)
            if forced.callee in info.imported_calls:
                call = info.imported_calls[forced.callee][0]
                self.report(ctx, call, message, exact=True, statement=info.call_statements.get(call))
            else:  # a namesake's call (`def detrend_func` in two branches of one function: one qualname)
                line, col, end_line, end_col = ctx.def_name_span(info)
                ctx.diagnostics.append(
                    Diagnostic(self.CODE, self.SEVERITY, message, ctx.path, line, col, end_line, end_col, self.DOC.use_instead))
        elif forced.callee in info.calls:
            call = info.calls[forced.callee]
            message = self.MESSAGE.format(callee=forced.callee)
            if isinstance(call.func, cst.Name) and call.func.value != forced.callee:  # `Leaf(n)`, `class Leaf(Base)`
                message = self.CREATE_MESSAGE.format(created=call.func.value, callee=forced.callee)
            self.report(ctx, call, message, exact=True, statement=info.call_statements.get(call))
        elif (call := class_method_calls(info.node).get(forced.callee)) is not None:  # `Norm.center(w)`
            self.report(ctx, call, self.MESSAGE.format(callee=forced.callee), exact=True)
        elif forced.callee in info.references:
            reference = info.references[forced.callee]
            message = self.REFERENCE_MESSAGE.format(callee=forced.callee)
            if reference.value != forced.callee:  # `HANDLER = inc` at module level
                message = self.HOLDER_MESSAGE.format(callee=forced.callee, holder=reference.value)
            self.report(ctx, reference, message, exact=True, statement=info.call_statements.get(reference))
