"""Results of same-module calls that a function writes into in place.

A function left as NumPy code that does ``p = softmax(z)`` and then ``p[i] -= 1``
(or ``p.sort()``, ``np.fill_diagonal(p, 0)``, ``np.add.at(p, i, 1)``, ``out=p``) relies on ``softmax`` returning a NumPy array.  If ``softmax`` migrates, it returns
an immutable JAX array and the write raises at run time.  The same holds for the
arrays of an object a call returns (``b = make_box(n); b.F[0, 1] = 0``) or sets
up (``b = Box(n)``: the class's ``__init__``), and for the elements of a container
it returns (``for w in make_weights(): w[0] = 0``) or of a display of results
(``for v in [make(n), make(m)]: v[0] = 0``, ``a, b = make(n), make(m)``).

Augmented assignments count too when the name shares the array with another
reference: ``y = x; y += 1``, ``x = b.x; x += 1``, ``for w in ws: w -= g``, or
``d["k"] = x; x += 1``, ``b.G = b.F; b.G += 1``.  NumPy updates the one array in place; on a JAX array
``+=`` only rebinds the name, so the other reference silently keeps the old
values.  (``p = f(z); p += 1`` alone is a plain rebinding either way.)

A boolean mask computed from a result inside a loop (``d[x[k + 1:] > x[k]]`` for ``k`` in a range) counts too:
NumPy gives way to no one there, but each step compares a JAX array of a new shape, and eager jax.numpy
compiles a kernel for each (pymannkendall's Mann-Kendall score: 0.02 s became 586 s).

A result on the right of an augmented assignment to an array another reference holds (a parameter,
``self.total``, a second reference) counts too: ``total += act(x)`` with a JAX array on the right does not
update ``total`` in place (NumPy gives way to JAX's operator, which makes a new array and rebinds the name).
So does a result handed to a function that does that with its parameter, also inside a display or through
``list(...)`` (``sgd([w], [grad(w, x)])`` with ``for p, g in zip(params, grads): p -= lr * g``), and a name
a result was added into in place (``g *= scale(x)``: with a JAX array on the right, ``g`` becomes one).

A new array computed from such a result by any of its methods, an operator or a comparison
(``dy = probs.copy()``, ``s = M.sum(axis=1)``, ``r = p - 1``, ``m = p > 0``, ``abs(p)``) is a JAX array
as well, and so is what a NumPy function that hands its work to the array's method returns
(``np.sum(p)``, ``np.round(p)``: ``DERIVING_FUNCTIONS``), or a read-only NumPy view of it
(``np.asarray(p)``, ``np.ravel(p)``), so writes into it count too (``np.array(p)``, ``np.copy(p)``,
ufuncs such as ``np.exp(p)`` make writable NumPy arrays and do not); and so is what a function returns
computed that way (``return x / norm(x)``).

Results stored in an attribute (``self.P = predict(self.P)``, ``self.x, self.P = update(...)``,
``b.F = build(n)``, anywhere in the module: ``attribute_sources``) are followed into every function by
the attribute's name (``self.P *= k`` in another method, ``P = f.P; P[0] = 0`` in a caller): whoever holds
the object may hold the array, so an augmented assignment to an attribute counts as a write into it.
Results appended to an attribute or stored as items of one bound to a dict or list count too
(``self.params = {"W": init(n)}``, ``self.hist.append(make(n))``, then ``for p in self.params.values(): p -= g``);
items stored into an array attribute are copies and do not (``self.state[k] = f(x)``).
An array a parameter brings that is stored in an attribute (``def __init__(self, P0): self.P = P0``)
makes the function one that writes into that parameter when the attribute is written.
A function that hands back (an array computed from) a parameter (``def scale(x): return 2 * x``:
``passers``) hands back what each call passes it: ``p = scale(make(n)); p[0] = 5`` writes into ``make``'s result.

A result handed to a function along with a function that writes into
its parameters (``apply(inc, make(n))``) counts as written: whoever is handed
``inc`` may call it on the result.  ``augments_shared_state`` applies the same
reasoning to a method's ``self`` (see ``propagation.callers_of_unsupported``).

The engine keeps such callees as NumPy code too (see ``propagation.callees_written_by_unsupported``).
"""

from __future__ import annotations

import libcst as cst

from np2jax.cstutil import target_parts
from np2jax.visitors import FastVisitor, visit

INPLACE_METHODS = frozenset(  # NumPy array methods that change the array in place
    {"sort", "fill", "put", "itemset", "partition", "resize", "setflags", "byteswap"})
INPLACE_FUNCTIONS = frozenset(  # NumPy functions that change their first argument in place (see NPJ111)
    {"copyto", "putmask", "place", "put", "put_along_axis", "fill_diagonal", "shuffle"})
STORING_METHODS = frozenset("append extend insert add update setdefault __setitem__".split())
# NumPy functions that call the array's own method (numpy's fromnumeric: a JAX array's gives a JAX array)
# or give a read-only view of a JAX array (its buffer): their results cannot be written into either.
DERIVING_FUNCTIONS = frozenset(
    "all amax amin any argmax argmin argpartition argsort around choose clip compress cumprod cumsum diagonal "
    "matrix_transpose max min nonzero partition prod ravel repeat reshape round searchsorted sort squeeze sum "
    "swapaxes take trace transpose mean std var ptp cumulative_sum cumulative_prod asarray asanyarray "
    "ascontiguousarray asfortranarray atleast_1d atleast_2d atleast_3d expand_dims flip fliplr flipud moveaxis "
    "rollaxis broadcast_to real imag diag".split())
# Reductions that, of the array alone (no axis, keepdims or out), give a NumPy scalar: nothing to write into.
SCALAR_REDUCTIONS = frozenset("all any argmax argmin max min amax amin mean prod ptp std sum var item tolist".split())
ELEMENT_CALLS = frozenset("zip enumerate reversed list tuple iter sorted".split())  # their elements are their arguments'
# NumPy constructors of a new ndarray of numbers: an item stored into one (`out[i] = m[i]`) is copied, not held.
# (Not the `*_like` ones: of an object array, an object array; nor one given an object dtype or a None fill value.)
NEW_ARRAYS = frozenset("zeros ones empty full eye identity arange linspace".split())


def result_uses(
    function: cst.FunctionDef, callee_of, writers=None, params: bool = False, held=None, attributes=None, passers=None,
    fresh_items=frozenset(),
) -> tuple[dict[str, cst.CSTNode], frozenset[str]]:
    """Same-module callee -> the first in-place write into (part of) its result in ``function``; and the
    callees whose results ``function`` returns, directly or on an object or in a container it returns
    (``b.F = build(n); return b``): if ``function`` stays NumPy for a caller that writes into its result,
    those must stay NumPy too.

    ``callee_of(call)`` names the same-module function a call calls (None for others).

    Arrays handed to a function that writes into its parameters count as written too: ``writers`` maps
    such callees to the parameters they write into (``parameter_keys``), e.g. ``G = gram(x); add_ridge(G)``
    with ``def add_ridge(G, lam): G += lam``.  With ``params``, the function's own parameters are
    followed the same way (a caller holds them too, so ``x += 1`` on one counts): the written keys then
    include theirs, ``"#0:x"`` for its first parameter ``x``.  ``held``: module-level names holding
    callees' results (``module_level_uses``), followed into the function; ``attributes``: attribute names ->
    what the module stores in them (``attribute_sources``), followed by name (``self.P``, ``f.P``); ``passers``:
    callees -> the parameters whose arrays (or arrays computed from them) they return, as ``writers``
    (``def scale(x): return 2 * x``: ``p = scale(make(n))`` holds ``make``'s result too). ``fresh_items``: local
    lists and dicts of new arrays whose items nothing else refers to (``FunctionInfo.fresh_items``): ``d[k] op= v``
    on one rebinds the item, NumPy's array or JAX's alike."""
    bound: dict = dict(global_names(function, held or {}))
    keys = parameter_keys(function)
    if params:
        for key, name in keys:
            bound[name] = key
    return result_uses_in([function.body], callee_of, writers, bound, parameter_names(function), attributes, passers,
                          fresh_items)


def augments_shared_state(method: cst.FunctionDef) -> cst.CSTNode | None:
    """The first ``op=`` in a method through a second reference to an attribute of the object it is
    called on (``x = self.x; x += 2``, ``self.prev = self.x; self.x += dx``): NumPy updates the one array,
    seen through both references; on JAX arrays only the one named is rebound."""
    params = [*method.params.posonly_params, *method.params.params]
    if not params:
        return None
    finder = _ResultWrites(lambda call: None, {})
    finder.bound[params[0].name.value] = ("#self",)
    visit(method.body, finder)
    return finder.augmented.get("#self")


def parameter_keys(function: cst.FunctionDef) -> list[tuple[str, str]]:
    """``("#0:x", "x")`` for each positional parameter (``#-:name`` for keyword-only ones), ``self``/``cls`` aside."""
    keys = []
    positional = [*function.params.posonly_params, *function.params.params]
    for index, param in enumerate(positional):
        if index == 0 and param.name.value in ("self", "cls"):
            continue
        keys.append((f"#{index}:{param.name.value}", param.name.value))
    keys.extend((f"#-:{param.name.value}", param.name.value) for param in function.params.kwonly_params)
    return keys


def parameter_names(function: cst.FunctionDef) -> frozenset[str]:
    return frozenset(name for _, name in parameter_keys(function))


def result_uses_in(
    nodes, callee_of, writers=None, params=None, parameters=frozenset(), attributes=None, passers=None,
    fresh_items=frozenset(),
) -> tuple[dict[str, cst.CSTNode], frozenset[str]]:
    """``result_uses`` for code given as a list of nodes, visited in order (a body, or a module's
    top-level statements); ``callee_of`` may name any function, an imported one too.  ``parameters``:
    the names of the function's parameters (``total += f(x)`` on one counts as a write into ``f``'s result)."""
    finder = _ResultWrites(callee_of, writers or {}, attributes)
    finder.passers = passers or {}
    finder.parameters = frozenset(parameters)
    finder.fresh_items = frozenset(fresh_items)
    for name, key in (params or {}).items():
        finder.bound[name] = key if isinstance(key, tuple) else (key,)
        finder.shared.add(name)  # the caller (or, for a module-level name, the module) holds the same array
    for node in nodes:
        visit(node, finder)
    return finder.written, frozenset(finder.returned)


def attribute_sources(functions, passers=None) -> dict[str, tuple[str, ...]]:
    """Attribute name -> what the module's functions store in attributes of that name: the callees whose
    results (or arrays computed from them) they store (``self.P = predict(self.P)``, ``self.x, self.P = update(z)``,
    ``self.Q = self.P``, ``b.F = build(n)``), and the parameters whose arrays they store, as
    ``"qualname|#1:P0"`` (``def __init__(self, P0): self.P = P0``).  ``functions``: (qualname, node,
    callee_of) triples; ``passers``: see ``result_uses``.  Objects are not told apart: a name stands for every
    attribute spelled so."""
    found: dict[str, tuple[str, ...]] = {}
    while True:  # `self.Q = self.P` in one method, `self.P = make()` in another
        stored: dict[str, set[str]] = {name: set(sources) for name, sources in found.items()}
        items: dict[str, set[str]] = {}
        containers: set[str] = set()
        for qualname, function, callee_of in functions:
            finder = _ResultWrites(callee_of, {}, found)
            finder.passers = passers or {}
            for key, name in parameter_keys(function):
                finder.bound[name] = (f"{qualname}|{key}",)
            visit(function.body, finder)
            for name, sources in finder.stored.items():
                stored.setdefault(name, set()).update(sources)
            for name, sources in finder.items.items():
                items.setdefault(name, set()).update(sources)
            containers |= finder.containers
        for name in containers:  # items stored in an array are copies; in a dict or a list, the arrays themselves
            stored.setdefault(name, set()).update(items.get(name, ()))
        current = {name: tuple(sorted(sources)) for name, sources in stored.items() if sources}
        if current == found:
            return found
        found = current


def module_level_uses(statements, callee_of) -> tuple[dict[str, cst.CSTNode], dict[str, tuple[str, ...]]]:
    """``result_uses_in`` for a module's top-level statements (functions and classes left out), and the
    module-level names that hold callees' results once they have run (``BUF = make(3)``): a function
    writing into ``BUF`` writes into ``make``'s result (pass them to ``result_uses_in`` as ``params``)."""
    finder = _ResultWrites(callee_of, {})
    for statement in statements:
        if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            visit(statement, finder)
    held = {name: callees for name, callees in finder.bound.items() if "." not in name}
    return finder.written, held


def global_names(function: cst.FunctionDef, held: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Of ``held`` (``module_level_uses``), the names ``function`` may read as module-level names: all but its
    parameters (a name it assigns is rebound where it does)."""
    if not held:
        return {}
    params = function.params
    own = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    own.update(p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))
    return {name: callees for name, callees in held.items() if name not in own}


class _ResultWrites(FastVisitor):
    """Sources are tuples of callees (and ``#`` keys): a name may hold the result of one of several calls
    (``for v in [make(n), make(m)]``); empty when it holds none."""

    def __init__(self, callee_of, writers, attributes=None) -> None:
        self.callee_of = callee_of
        # attribute name -> what the module stores in attributes so named (attribute_sources), for chains not bound here
        self.attributes: dict[str, tuple[str, ...]] = attributes or {}
        self.stored: dict[str, set[str]] = {}  # attribute name -> what this code stores in attributes so named
        self.items: dict[str, set[str]] = {}  # the same for items stored in them (`self.cache["P"] = make(n)`)
        self.containers: set[str] = set()  # attributes bound to a dict or list (`self.cache = {}`)
        self.local_containers: set[str] = set()  # local names bound to a dict or list (`d = {}`, `L = [a, b]`)
        self.fresh_items: frozenset[str] = frozenset()  # see result_uses
        self.writers: dict[str, frozenset[str]] = writers  # callee -> parameter keys it writes into
        self.passers: dict[str, frozenset] = {}  # callee -> parameter keys whose arrays it returns
        # name or attribute chain (`b.F`) -> the callees whose result (or part of it) it holds
        self.bound: dict[str, tuple[str, ...]] = {}
        self.held_items: dict[str, tuple[str, ...]] = {}  # a local list, dict or array -> callees whose results it holds as items
        self.shared: set[str] = set()  # bound names whose array another reference may also hold
        self.written: dict[str, cst.CSTNode] = {}
        self.augmented: dict[str, cst.CSTNode] = {}  # the first `op=` through a shared reference, per callee
        self.held: dict[str, set[str]] = {}  # name -> callees whose results its attributes or elements hold
        self.returned: set[str] = set()
        self.parameters: frozenset[str] = frozenset()  # the function's parameters (the caller may hold their arrays)
        self.branches = 0  # `if`/loop/`try` blocks the visit is in: a rebinding there may not happen
        self.masks: set[str] = set()  # names bound to boolean masks (`nz = np.logical_not(np.isclose(n, 0))`)
        self.loops = 0  # `for`/`while` loops the visit is in
        self.new_arrays: set[str] = set()  # names last bound (outside branches) to a new NumPy array (NEW_ARRAYS)
        self.revisiting = False  # visiting a loop's body a second time

    def leave_Assign(self, node: cst.Assign) -> None:  # (after the value: `x = add_jitter(x)` writes into the old `x`)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                if _mask_like(node.value, self.masks):
                    self.masks.add(target.target.value)
                else:
                    self.masks.discard(target.target.value)
            self._bind(target.target, node.value)
            for part in target_parts(target.target):
                if isinstance(part, cst.Subscript):  # `p[0] = v`, `p[i], p[j] = p[j], p[i]`
                    self._write(part.value, node)
                    self._store_in_attribute(part.value, node.value, item=True)  # `self.cache["P"] = make(n)`
            if not isinstance(target.target, cst.Name):
                self._store(node.value)  # `d["k"] = x`, `self.x = x`: x is kept elsewhere too
                holder = _base_name(target.target)
                item = isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name)
                if holder is not None and not (holder in self.new_arrays and item):
                    results = self._results_in(node.value)
                    self.held.setdefault(holder, set()).update(results)  # `b.F = build(n)`, `out["x"] = x`
                    if item and results:  # `d["a"] = m`, then `d["a"] += 1.0` updates `m` in place (hunt47 S5)
                        self.held_items[holder] = tuple(dict.fromkeys((*self.held_items.get(holder, ()), *sorted(results))))

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """Bind the names (and attribute chains) of ``target`` to what ``value`` holds; a tuple display
        unpacked into as many names binds them element by element (``a, b = make(n), make(m)``)."""
        if (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))
                and len(target.elements) == len(value.elements)
                and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))):
            for element, part in zip(target.elements, value.elements):
                self._bind(element.value, part.value)
            return
        callee = self._call_result(value) if isinstance(value, cst.Call) else ()
        part = () if callee else self._root(value)
        if not callee and not part:
            callee = self._derived(value)  # `dy = probs.copy()`: a new array, not shared
        if not callee and not part and isinstance(value, (cst.List, cst.Tuple, cst.Dict)):
            callee = tuple(sorted(self._results_in(value)))  # `L = [make(n)]`, `d = {"W": make(n)}`: holding results
        keys = [key for key in map(_chain, target_parts(target)) if key is not None]  # `self.x, self.P = update(z)`
        if isinstance(target, cst.Name) and _container(value):
            self.local_containers.add(target.value)
        if isinstance(target, cst.Name) and not self.branches and isinstance(value, cst.Call) and (
                _numpy_function(value.func) in NEW_ARRAYS and _chain(value.func.value) in ("np", "numpy")
                and not any(map(_object_like, _dtype_arguments(value)))):
            self.new_arrays.add(target.value)  # `out = np.zeros(3)`: a NumPy array of numbers, items stored are copied
        else:
            self.new_arrays.difference_update(keys)
        for key in keys:
            for stale in [k for k in self.bound if k.startswith(key + ".")]:  # `b = other()`: b.F is another one now
                del self.bound[stale]
            self.shared.discard(key)
            if self.branches and key in self.bound and "." not in key:
                # `if np.isscalar(d): d = np.nan` then `d[d == 0] = np.nan`: when the branch is not taken, `d` still
                # holds the earlier result (the bindings merge, flow-insensitively)
                self.bound[key] = tuple(sorted(set(self.bound[key]) | set(callee or part)))
                continue
            if callee or part:
                self.bound[key] = callee or part
                if part:  # `y = x`, `x = b.x`, `w = ws[0]`, `self.y = self.x`: two references to one array
                    self.shared.add(key)
            elif "." in key:
                self.bound[key] = ()  # `self.P = np.eye(n)`: holds none, whatever other attributes so named hold
            else:
                self.bound.pop(key, None)  # rebound to something else
                if isinstance(value, (cst.Subscript, cst.Attribute)) and "." not in key:
                    self.shared.add(key)  # `row = W[0]`, `w = state["w"]`: a view or an element another reference holds
            if "." in key:
                self.stored.setdefault(key.rsplit(".", 1)[1], set()).update(callee or part)
                if _container(value):
                    self.containers.add(key.rsplit(".", 1)[1])
        source = _chain(value) if part else None
        if source is not None:  # `y = x`, `self.prev = self.x`: the other reference is shared too
            self.bound.setdefault(source, part)
            self.shared.add(source)

    def _enter_branch(self, node: cst.CSTNode) -> None:
        self.branches += 1

    def _leave_branch(self, node: cst.CSTNode) -> None:
        self.branches -= 1

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self.branches += 1
        self.loops += 1

    def _leave_loop(self, node: cst.CSTNode) -> None:
        if not self.revisiting:  # once more: the next step sees what this one bound (`labels = assign(x, centers)`
            self.revisiting = True  # before `centers = update_centers(...)` hands `assign` that result from step 2)
            visit(node.body, self)
            self.revisiting = False
        self.branches -= 1
        self.loops -= 1

    # (hooks, not on_visit: the dispatch calls them only for these nodes)
    visit_If = visit_Try = _enter_branch
    leave_If = leave_Try = _leave_branch
    visit_While = _enter_loop
    leave_While = leave_For = _leave_loop

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `p[i] -= v` fails on a JAX array; `p += v` on the name rebinds it (and strings, numbers do the same),
        # which differs only when another reference holds the same array
        target = node.target
        if isinstance(target, cst.Subscript):
            self._write(target.value, node)
            if isinstance(target.value, cst.Name) and target.value.value not in self.new_arrays:
                for callee in self.held_items.get(target.value.value, ()):  # `d["a"] = m; d["a"] += 1.0`: into `m`
                    self.written.setdefault(callee, node)
        key = _chain(target)
        if key is not None and key in self.bound and key in self.shared:
            for callee in self.bound[key]:
                self.written.setdefault(callee, node)
                self.augmented.setdefault(callee, node)
        if isinstance(target, cst.Attribute) and key is not None:
            # `self.P *= k`: whoever holds the object may hold the array too (`P = f.P` in a caller); on a JAX
            # array `*=` rebinds the attribute and they keep the old values
            for callee in self.bound.get(key, self.attributes.get(target.attr.value, ())):
                self.written.setdefault(callee, node)
        if key is not None and (isinstance(target, cst.Attribute) or key in self.shared or key in self.parameters):
            # `total += act(x)` on an array another reference holds: with a JAX array on the right, NumPy's
            # in-place add gives way to JAX's, which makes a new array and rebinds `total` (the caller's stays as it was)
            # (a parameter there, `p -= lr * g` with `g` from the caller: the caller's value must stay NumPy too)
            for callee in self._results_in(node.value):
                self.written.setdefault(callee, node)
        base = target.value.value if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) else None
        if base is not None and base not in self.new_arrays and base not in self.fresh_items and (
                base in self.bound or base in self.parameters or base in self.local_containers):
            # `params["W"] -= lr * step(X)` on a list or dict item: with a JAX array on the right, NumPy's in-place
            # subtract gives way to JAX's, which rebinds the item; whoever holds its old array keeps the old values
            for callee in self._results_in(node.value):
                self.written.setdefault(callee, node)
        if isinstance(target, cst.Name) and (results := self._source(node.value)):
            # `dh *= relu_grad(h)`: with a JAX array on the right, `dh` is rebound to a JAX array (computed from that result)
            self.bound[target.value] = tuple(dict.fromkeys((*self.bound.get(target.value, ()), *results)))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # `n[nz]` with a NumPy boolean mask: NumPy semantics a JAX array does not share in every case (a 0-d array
        # indexed with np.True_ raises inside jax), so the result must stay a NumPy array
        masks = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index) and _mask_like(e.slice.value, self.masks)]
        if masks:
            for callee in self._source(node.value):
                self.written.setdefault(callee, node)
        if self.loops:
            # `d[x[k + 1:] > x[k]]` in a loop: a mask computed from a JAX array is one, made on a new shape at each
            # step (eager jax.numpy compiles each): the arrays it is computed from must stay NumPy's
            for mask in masks:
                for callee in self._derived(mask) if isinstance(mask, cst.Comparison) else ():
                    self.written.setdefault(callee, node)
            # `cov[i]` at each step: every read of a JAX array dispatches to XLA, 100-1000x NumPy's time (real36 L4)
            for callee in self._source(node.value) if isinstance(node.value, cst.Name) else ():
                self.written.setdefault(callee, node)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.returned.update(self._results_in(node.value))
            for element in _elements(node.value):
                holder = _base_name(element)
                self.returned.update(self.held.get(holder, ()) if holder is not None else ())

    def _results_in(self, expr: cst.BaseExpression) -> set[str]:
        """The callees whose results ``expr`` (or the elements of a tuple, list or set display) may be part of."""
        return {callee for element in _elements(expr) for callee in self._source(element)}

    def visit_For(self, node: cst.For) -> None:
        self.branches += 1
        self.loops += 1
        iterable, target = node.iter, node.target
        if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip"
                and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(iterable.args)
                and not any(arg.star or arg.keyword is not None for arg in iterable.args)):
            # `for p, g in zip(params, grads)`: each name takes the elements of its own iterable
            for element, arg in zip(target.elements, iterable.args):
                self._bind_element(element.value, self._root(arg.value, elements=True), not _is_range(arg.value))
            return
        self._bind_element(target, self._root(iterable, elements=True), not _is_range(iterable))

    def _bind_element(self, target: cst.BaseExpression, callee: tuple[str, ...], held: bool = False) -> None:
        """``held``: the loop takes the elements of a container or the rows of an array (not numbers of a
        ``range``), which the container or the array holds too."""
        for name in target_names(target):
            self.shared.discard(name)
            self.new_arrays.discard(name)
            if callee:
                self.bound[name] = callee
                self.shared.add(name)  # an element of the container it iterates over
            else:
                self.bound.pop(name, None)
                if held:  # `for m, g in zip(self.m, grads): m += g`: a JAX `g` rebinds `m`, `self.m` keeps the old
                    self.shared.add(name)


    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and (func.attr.value in INPLACE_METHODS or _subclass_view(node)) and (
                self.callee_of(node) is None):  # (`c.fill(v)` of `c = Canvas(n)`: the class's own method)
            self._write(func.value, node)  # (`.view(cls)`: a JAX array has no ndarray subclass view either)
        if isinstance(func, cst.Attribute) and func.attr.value in STORING_METHODS and _chain(func.value) not in ("np", "numpy"):
            for arg in node.args:  # (`np.add(a, b, out=s)` is no `set.add`)
                self._store(arg.value)
                self._store_in_attribute(func.value, arg.value)  # `self.history.append(make(n))`
        if _writes_first_argument(func) and node.args and node.args[0].keyword is None:
            self._write(node.args[0].value, node)  # np.fill_diagonal(p, 0), np.add.at(p, i, 1)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                for element in _elements(arg.value):
                    self._write(element, node)
        if not self.writers:
            return
        written = self.writers.get(self.callee_of(node))
        if written:
            # (also inside a display: `sgd([w], [grad(w, x)])` with `def sgd(ps, gs): for p, g in zip(ps, gs): p -= g`)
            for arg in self._arguments(node, self.callee_of(node), written):
                for source in self._results_in(arg):
                    self.written.setdefault(source, node)
        elif any(isinstance(arg.value, cst.Name) and arg.value.value in self.writers for arg in node.args):
            # `apply(inc, x)` with `def inc(v): v += 1`: whoever calls `inc` may hand it any of the other arguments
            for arg in node.args:
                for source in self._results_in(arg.value):
                    self.written.setdefault(source, node)

    def _root(self, expr: cst.BaseExpression, elements: bool = False) -> tuple[str, ...]:
        """The callees whose result ``expr`` is part of: a bound name, its attribute, element or view
        (``elements``: or, for a loop, the elements of a call's result, also through ``zip``/``enumerate``,
        or the results in a list or tuple display)."""
        if isinstance(expr, cst.Name):
            return self.bound.get(expr.value, ())
        if isinstance(expr, cst.Attribute) and _chain(expr) in self.bound:
            return self.bound[_chain(expr)]
        if isinstance(expr, cst.Attribute) and expr.attr.value in self.attributes:  # `f.P`, `self.P` stored elsewhere
            return tuple(dict.fromkeys((*self._root(expr.value), *self.attributes[expr.attr.value])))
        if isinstance(expr, (cst.Attribute, cst.Subscript)):
            return self._root(expr.value)
        if elements and isinstance(expr, (cst.Tuple, cst.List)):  # `for v in [make(n), make(m)]`
            return tuple(dict.fromkeys(callee for element in expr.elements for callee in self._source(element.value)))
        if isinstance(expr, cst.Call):
            if elements and self.callee_of(expr) is not None:
                return self._call_result(expr)
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("values", "items") and not expr.args:
                return self._root(func.value)  # `for k, w in params.items()`
            if elements and isinstance(func, cst.Name) and func.value in ELEMENT_CALLS:
                return next((r for r in (self._root(a.value, True) for a in expr.args) if r), ())
            if isinstance(func, cst.Name) and func.value in ("list", "tuple") and len(expr.args) == 1:
                return self._root(expr.args[0].value, elements)  # `list(grads)`: a new list of the same arrays
        return ()

    def _derived(self, expr: cst.BaseExpression) -> tuple[str, ...]:
        """The callees whose result ``expr`` computes a new array from, with an array method or an operator."""
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and (source := self._source(func.value)):
                # `s = M.sum(axis=1)`, `dy = probs.copy()`: any method of a JAX array gives a JAX array
                # (`m = logw.max()`: a whole-array reduction is a NumPy scalar, nothing to write into)
                return () if func.attr.value in SCALAR_REDUCTIONS and not expr.args else source
            positional = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
            if positional and (_numpy_function(func) in DERIVING_FUNCTIONS or (isinstance(func, cst.Name) and func.value == "abs")):
                if not (isinstance(func, cst.Attribute) and _chain(func.value) in self.bound):
                    if _numpy_function(func) in SCALAR_REDUCTIONS and len(expr.args) == 1:
                        return ()  # `np.sum(p)`
                    return self._source(positional[0])  # `np.sum(M, axis=1)`, `np.asarray(M)`, `abs(M)`
            return ()
        if isinstance(expr, cst.Comparison):  # `m = p > 0`
            sides = [expr.left, *(c.comparator for c in expr.comparisons)]
            return tuple(dict.fromkeys(key for side in sides for key in self._source(side)))
        if isinstance(expr, cst.BinaryOperation):  # a JAX array on either side gives a JAX array
            return tuple(dict.fromkeys((*self._source(expr.left), *self._source(expr.right))))
        if isinstance(expr, cst.UnaryOperation):
            return self._source(expr.expression)
        if isinstance(expr, cst.IfExp):  # `obj = create() if value is None else np.array(value)`: either one
            return tuple(dict.fromkeys((*self._source(expr.body), *self._source(expr.orelse))))
        if isinstance(expr, (cst.Attribute, cst.Subscript)):  # `probs.copy().T`, `(p - 1)[0]`, `grads(p)["W"]`
            return self._source(expr.value)
        return ()

    def _source(self, expr: cst.BaseExpression) -> tuple[str, ...]:
        """The callees whose result ``expr`` is, is part of, or is computed from."""
        return (self._call_result(expr) if isinstance(expr, cst.Call) else ()) or self._root(expr) or self._derived(expr)

    def _call_result(self, call: cst.Call) -> tuple[str, ...]:
        """The callee a call calls, and what the arguments it hands back hold (``passers``): ``scale(make(n))``
        -> scale, make."""
        callee = self.callee_of(call)
        if callee is None:
            return ()
        passed = self.passers.get(callee)
        if not passed:
            return (callee,)
        found = [callee]
        for arg in self._arguments(call, callee, passed):
            found.extend(self._source(arg))
        return tuple(dict.fromkeys(found))

    def _arguments(self, call: cst.Call, callee: str, keys) -> list[cst.BaseExpression]:
        """The arguments of ``call`` given for the parameters ``keys`` (positions and ``#-:name``s) of ``callee``."""
        offset = 1 if "." in callee else 0  # a method's or a class's: `self` comes first
        found = []
        for index, arg in enumerate(call.args):
            if arg.star:
                break
            if (f"#-:{arg.keyword.value}" if arg.keyword is not None else index + offset) in keys:
                found.append(arg.value)
        return found

    def _store_in_attribute(self, container: cst.BaseExpression, value: cst.BaseExpression, item: bool = False) -> None:
        """``value`` is stored in ``container``: when that is (an element of) an attribute, remember what it holds
        (``item``: stored as an item, which an array copies and a dict or list keeps: see ``items``)."""
        while isinstance(container, cst.Subscript):
            container = container.value
        if isinstance(container, cst.Attribute):
            stored = self.items if item else self.stored
            stored.setdefault(container.attr.value, set()).update(self._results_in(value))

    def _store(self, value: cst.BaseExpression) -> None:
        for element in _elements(value):
            if isinstance(element, cst.Name) and element.value in self.bound:
                self.shared.add(element.value)

    def _write(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name) and target.value in self.fresh_items and isinstance(node, (cst.Assign, cst.AugAssign)):
            return  # `params[k] -= v` of a container of new arrays: an item rebound, not an array written
        for callee in self._root(target):
            self.written.setdefault(callee, node)


# NumPy functions that make boolean arrays (a mask) of their arguments
MASK_FUNCTIONS = frozenset(
    "isclose isnan isinf isfinite isneginf isposinf logical_not logical_and logical_or logical_xor signbit greater "
    "greater_equal less less_equal equal not_equal".split())


def _mask_like(expr: cst.BaseExpression, masks: set[str]) -> bool:
    """A boolean mask: a comparison, ``~m``, ``np.isclose(...)``/``np.logical_not(...)`` ..., or a name bound to one."""
    if isinstance(expr, cst.Comparison):
        return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _mask_like(expr.expression, masks)
    if isinstance(expr, cst.Name):
        return expr.value in masks
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Name):
        return expr.func.attr.value in MASK_FUNCTIONS
    return False


def _subclass_view(call: cst.Call) -> bool:
    """``a.view(cls)``, ``a.view(Quaternion)``, ``a.view(type=Vec)``: an ndarray subclass's view of ``a`` (pyrr's
    ``create().view(cls)``), which a JAX array cannot give (its ``.view`` takes a dtype)."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "view" and call.args):
        return False
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "type":
            return True
    first = call.args[0]
    return (first.keyword is None and isinstance(first.value, cst.Name)
            and (first.value.value == "cls" or first.value.value[:1].isupper()))


def _is_range(iterable: cst.BaseExpression) -> bool:
    """``range(...)`` (also in ``enumerate``/``reversed``): its elements are Python ints, which nothing else holds."""
    while isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value in ("enumerate", "reversed") and iterable.args:
        iterable = iterable.args[0].value
    return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"


def _writes_first_argument(func: cst.BaseExpression) -> bool:
    """``np.fill_diagonal``, ``np.copyto`` ... or a ufunc's ``.at`` (``np.add.at``): writes into its first argument."""
    if not isinstance(func, cst.Attribute):
        return False
    return func.attr.value in INPLACE_FUNCTIONS or (func.attr.value == "at" and isinstance(func.value, cst.Attribute))


def _container(value: cst.BaseExpression) -> bool:
    """A dict or list display or comprehension, or a call to ``dict``, ``list`` or ``defaultdict``."""
    if isinstance(value, (cst.Dict, cst.List, cst.DictComp, cst.ListComp)):
        return True
    func = value.func if isinstance(value, cst.Call) else None
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    return name in ("dict", "list", "defaultdict", "OrderedDict")


def _numpy_function(func: cst.BaseExpression) -> str | None:
    """``"sum"`` for ``np.sum`` (any module-like name's attribute)."""
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return func.attr.value
    return None


# positions of a NEW_ARRAYS constructor's dtype (and fill value) when passed positionally
_DTYPE_POSITIONS = {"zeros": (1,), "ones": (1,), "empty": (1,), "identity": (1,), "full": (1, 2), "eye": (3,)}


def _dtype_arguments(call: cst.Call) -> list[cst.BaseExpression]:
    """The arguments of ``np.zeros(...)``-like ``call`` that choose its dtype: ``dtype=``, a positional dtype,
    ``np.full``'s fill value."""
    positions = _DTYPE_POSITIONS.get(_numpy_function(call.func) or "", ())
    return [arg.value for i, arg in enumerate(call.args)
            if (arg.keyword is None and i in positions) or (arg.keyword is not None and arg.keyword.value in ("dtype", "fill_value"))]


def _object_like(node: cst.BaseExpression) -> bool:
    """``object``, ``np.object_``, ``"O"``, ``None``, or anything but a number or a numeric dtype name: an argument
    that may make ``np.empty(n, dtype=...)``/``np.full(n, ...)`` an array of objects, which holds what is stored."""
    if isinstance(node, (cst.Integer, cst.Float)) or (isinstance(node, cst.UnaryOperation) and isinstance(node.expression, (cst.Integer, cst.Float))):
        return False
    if isinstance(node, cst.Name):
        return node.value not in ("float", "int", "bool", "complex", "True", "False")
    if isinstance(node, cst.Attribute):
        return node.attr.value in ("object_", "object") or not isinstance(node.value, cst.Name)
    if isinstance(node, cst.SimpleString):
        return str(node.evaluated_value).lower() in ("o", "object", "|o")
    return True


def _base_name(expr: cst.BaseExpression) -> str | None:
    """``b`` for ``b``, ``b.F``, ``b["x"]``, ``b.F[0]``."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _elements(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``expr`` itself, or the elements of a tuple, list or set display, or the values of a dict display, also
    nested ones (``return loss, [gW, gb]``)."""
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set, cst.Dict)):  # (a dict's `**other` too)
        return [part for e in expr.elements for part in _elements(e.value)]
    return [expr]


def _chain(expr: cst.BaseExpression) -> str | None:
    """``"b.F"`` for ``b.F`` (``"x"`` for a name): an attribute chain that names one reference."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = _chain(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds (``a, (b, c)`` -> a, b, c)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    return []
