"""Augmented writes into the items of a local list or dict: ``grads["W"] += dW``, ``parts[0] -= 1.0``.

NumPy's ``d[k] += v`` adds into the array that ``d[k]`` holds, in place: every other reference to that array
(a name it was bound to before being stored, another item holding the same array, a view of a parameter, a name
taken out of the container) sees the change. In JAX the item is rebound to a new array and nothing else changes.
The write is left as Python code (the container stays a container) only when no other reference can exist: the
container is a new list or dict of this function whose items are all new arrays or numbers, and what is taken
out of it is used only in expressions. Otherwise the function stays NumPy (NPJ201, with the reason below).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import descendants
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope, ValueBinding
from np2jax.visitors import inner_nodes

# methods of a list or dict that store their last argument as an item
_STORING = frozenset({"append", "insert", "setdefault"})
# ... that hand an item back (a name bound to it would be an alias)
_GETTING = frozenset({"get", "pop", "setdefault", "values", "items", "popitem"})
# ... that touch no item's array
_HARMLESS = frozenset({"keys", "clear", "index", "count", "__len__", "__contains__"})
_DICTS = frozenset({"builtins.dict", "collections.defaultdict", "collections.OrderedDict"})
_NUMBER_TYPES = frozenset({"int", "float", "complex", "bool"})
_READING_BUILTINS = frozenset({"builtins.len", "builtins.sum", "builtins.min", "builtins.max", "builtins.any", "builtins.all"})


def container_item_blocker(
    function: cst.FunctionDef, name: str, scope: Scope, resolver: Resolver, fresh, only_stored_at, consumes,
    fresh_container=lambda value: None, reads_items=lambda call, argument: False,
) -> str | None:
    """None when ``name[k] op= v`` in ``function`` cannot be seen through another reference to the item's array,
    else why it can. ``fresh(expr)``: is ``expr`` certainly a new array (aliasing.is_fresh_array);
    ``only_stored_at(name, node)``: is ``name`` a local new array that only the statement ``node`` stores;
    ``consumes(call, argument)``: does ``call`` make a new value of ``argument`` and keep no reference to it (a
    NumPy function making a new array, ``.sum()``, a function of the module private_arguments.py clears);
    ``fresh_container(value)``: "dict" or "list" when ``value`` calls a function of the module returning a new
    container of new items (analysis/fresh_results.py), else None; ``reads_items(call, argument)``: does ``call`` (a function of the module)
    only read the items of the container ``argument`` into new values (private_arguments.py)."""
    what = f"`{name}[...] op= ...` adds into the array stored in `{name}` in place in NumPy, and"

    def new_item(value: cst.BaseExpression, store: cst.CSTNode | None = None) -> bool:
        """A number, a new array, or (stored by ``store``) a local name bound only to new arrays that nothing
        uses after the store (`d[k] = res` as the last use of `res`)."""
        if _not_array(value) or fresh(value):
            return True
        if not (isinstance(value, cst.Name) and store is not None):
            return False
        return (only_stored_at(value.value, store) and not read_after(function, store, value.value)
                and _rebound_each_time(function, store, value.value))

    def reads_only(call: cst.Call, builtins_only: bool = False) -> bool:
        """A call that keeps no reference to its argument's items: ``len``, ``sum``, ``min``, ``max``, and (unless
        ``builtins_only``: given an item itself, ``np.asarray`` returns it) a NumPy function, for which a list of
        arrays becomes a new array."""
        qualname = resolver.qualname(call.func, scope)
        if any(arg.keyword is not None and arg.keyword.value in ("key", "default") for arg in call.args):
            return False  # `max(L, key=np.sum)` returns an item
        return qualname in _READING_BUILTINS or (not builtins_only and is_numpy(qualname))

    if _numbers_only(function, name, scope):
        return None  # `shape = [4, 3]; shape[-1] += k`: no item is ever an array before an update
    dict_like = True
    for binding in scope.bindings.get(name, ()):
        if not isinstance(binding, ValueBinding) or binding.augmented:
            return f"{what} `{name}` is not always a new list or dict of this function"
        made = fresh_container(binding.value)  # "dict", "list" or None
        problem = None if made else _made_problem(binding.value, new_item, resolver, scope)
        if problem is not None:
            return f"{what} {problem}: JAX rebinds the item to a new array instead"
        dict_like = dict_like and (made == "dict" or is_dict(binding.value, resolver, scope))
    for node, ancestors in _name_uses(function.body, name):
        problem = _use_problem(node, ancestors, name, dict_like, new_item, reads_only, consumes, reads_items)
        if problem is not None:
            return f"{what} {problem}: JAX rebinds the item to a new array instead"
    return None


def _made_problem(value: cst.BaseExpression, new_item, resolver: Resolver, scope: Scope) -> str | None:
    """Why the container ``value`` makes may hold an array something else refers to, if it may."""
    shared = "it may hold an array something else refers to"
    if isinstance(value, (cst.List, cst.Set, cst.Dict, cst.ListComp, cst.DictComp)):
        return None if new_items_display(value, new_item) else shared
    if isinstance(value, cst.Call):
        qualname = resolver.qualname(value.func, scope)
        if qualname in ("builtins.list", "builtins.dict", "collections.OrderedDict") and not value.args:
            return None
        if qualname == "collections.defaultdict" and len(value.args) == 1 and _new_factory(value.args[0].value, new_item):
            return None
    if isinstance(value, cst.BinaryOperation):
        displays = [side for side in (value.left, value.right) if isinstance(side, (cst.List, cst.Tuple))]
        numbers = bool(displays) and all(_not_array(e.value) for d in displays for e in d.elements)
        return None if numbers else "the same array may sit in several items (`[a] * n`)"
    return shared


def new_items_display(value: cst.BaseExpression, fresh) -> bool:
    """A list or dict display (or comprehension) each of whose items is a number or an array ``fresh`` accepts:
    ``{"W": np.zeros((n, m)), "b": 0.0}``."""
    def new(item: cst.BaseExpression) -> bool:
        return _not_array(item) or fresh(item)

    if isinstance(value, (cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and new(e.value) for e in value.elements)
    if isinstance(value, cst.Dict):
        return all(isinstance(e, cst.DictElement) and new(e.value) for e in value.elements)
    if isinstance(value, cst.ListComp):
        return new(value.elt)
    if isinstance(value, cst.DictComp):
        return new(value.value)
    return False


def _new_factory(factory: cst.BaseExpression, new_item) -> bool:
    """``defaultdict(float)``, ``defaultdict(lambda: np.zeros(n))``: each missing item is new."""
    if isinstance(factory, cst.Name):
        return factory.value in _NUMBER_TYPES
    return isinstance(factory, cst.Lambda) and new_item(factory.body)


def is_dict(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    if isinstance(value, (cst.Dict, cst.DictComp)):
        return True
    return isinstance(value, cst.Call) and resolver.qualname(value.func, scope) in _DICTS


def _not_array(node: cst.BaseExpression) -> bool:
    """Certainly not an array: a number, string, bool or None literal, a Python list, tuple, dict or set (made by a
    display or comprehension: ``d[k] += [x]`` extends it in place in both), ``len(...)``, ``int(...)``, a shape,
    a size or a number of dimensions, or arithmetic of those."""
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
                         cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _not_array(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _not_array(node.left) and _not_array(node.right)
    if isinstance(node, cst.Subscript):
        node = node.value  # `x.shape[-1]`
    if isinstance(node, cst.Attribute):
        return node.attr.value in ("shape", "ndim", "size")
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value in ("len", "int", "float", "str", "bool", "complex", "round")
    return isinstance(node, cst.Name) and node.value in ("True", "False", "None")


def _numbers_only(function: cst.FunctionDef, name: str, scope: Scope) -> bool:
    """Every value that becomes an item of ``name`` (in the displays it is bound to, ``name[k] = v``,
    ``name[k] op= v``, ``name.append(v)``) is certainly not an array."""
    for binding in scope.bindings.get(name, ()):
        value = binding.value if isinstance(binding, ValueBinding) and not binding.augmented else None
        if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
            items = [e.value for e in value.elements]
        elif isinstance(value, cst.Dict):
            items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
            if len(items) != len(value.elements):
                return False  # `{**other}`
        elif isinstance(value, cst.BinaryOperation):  # `[0] * n`
            displays = [side for side in (value.left, value.right) if isinstance(side, (cst.List, cst.Tuple))]
            items = [e.value for d in displays for e in d.elements] if displays else [value]
        else:
            return False
        if not all(map(_not_array, items)):
            return False
    for node in descendants(function.body):
        stored: list[cst.BaseExpression] = []
        if isinstance(node, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name:
                    if any(isinstance(e.slice, cst.Slice) for e in target.slice):  # `L[0:1] = [x]`: x is an item
                        stored.append(_elements_or_self(node.value))
                    stored.append(node.value)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) and (
                node.func.value.value == name and node.func.attr.value in _STORES):
            if node.func.attr.value in ("extend", "update"):  # `L.extend([x])`, `d.update({"a": m}, b=m)`
                stored.extend(_elements_or_self(arg.value) for arg in node.args)
            elif node.args:
                stored.append(node.args[-1].value)
        if not all(map(_not_array, stored)):
            return False
    return True


def _elements_or_self(value: cst.BaseExpression) -> cst.BaseExpression:
    """What a display given to ``extend``/``update`` (or a slice store) makes items of: its first element that may
    be an array, if any (else a number); anything else stands for itself (an array's rows, another container's items)."""
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        parts = [e.value for e in value.elements]
    elif isinstance(value, cst.Dict):
        parts = [e.value if isinstance(e, cst.DictElement) else e.value for e in value.elements]
    else:
        return cst.Name("__unknown__")
    return next((part for part in parts if not _not_array(part)), cst.Integer("0"))


def _returned(ancestors: tuple) -> bool:
    """The use is an element of displays a ``return`` returns (``return scale, shear, angles``)."""
    for holder in ancestors:
        if isinstance(holder, cst.Return):
            return True
        if not isinstance(holder, _DISPLAYS):
            return False
    return False


def _name_uses(body: cst.CSTNode, name: str):
    """(name node, its ancestors, nearest first) for each ``name`` under ``body``; a nested function that uses it
    is given as (that function, ())."""
    stack: list[tuple[cst.CSTNode, tuple]] = [(body, ())]
    while stack:
        node, ancestors = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            yield node, ancestors
            continue
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and node is not body:
            if any(isinstance(n, cst.Name) and n.value == name for n in descendants(node)):
                yield node, ()
            continue
        inner = (node, *ancestors[:11])
        stack.extend((child, inner) for child in inner_nodes(node))


_DISPLAYS = (cst.Element, cst.DictElement, cst.List, cst.Tuple, cst.Set, cst.Dict, cst.StarredElement)
_STORES = frozenset({"append", "insert", "extend", "setdefault", "update", "add", "appendleft", "extendleft", "put"})


def _use_problem(node, ancestors: tuple, name: str, dict_like: bool, new_item, reads_only, consumes, reads_items) -> str | None:
    if not ancestors:
        return f"a nested function uses `{name}`"
    parent = ancestors[0]
    grandparent = ancestors[1] if len(ancestors) > 1 else None
    if isinstance(parent, cst.AssignTarget) and parent.target is node:
        return None  # `name = [...]`: a binding, judged by _made_problem
    if isinstance(parent, cst.Subscript) and parent.value is node:
        if isinstance(grandparent, cst.AssignTarget) and grandparent.target is parent:
            assign = ancestors[2]  # `name[k] = v`; `name[i:j] = [v, w]` stores v and w
            sliced = any(isinstance(e.slice, cst.Slice) for e in parent.slice)
            values = [e.value for e in assign.value.elements] if sliced and isinstance(assign.value, (cst.List, cst.Tuple)) else (
                [cst.Name("__unknown__")] if sliced else [assign.value])
            if all(new_item(value, assign) for value in values):
                return None
            return f"`{name}[...] = ...` stores an array something else refers to"
        if isinstance(grandparent, (cst.AugAssign, cst.Del)) and grandparent.target is parent:
            return None
        return _taken_out(parent, ancestors[1:], name, consumes, reads_only)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        method = parent.attr.value
        if method in _HARMLESS:
            return None
        if method in _STORING and isinstance(grandparent, cst.Call) and grandparent.args:
            if not new_item(grandparent.args[-1].value, grandparent):
                return f"`{name}.{method}(...)` stores an array something else refers to"
            if method != "setdefault":
                return None
        if method in ("extend", "update") and isinstance(grandparent, cst.Call) and _displays_of_new_items(grandparent, new_item):
            return None  # `parts.extend([np.zeros(n)])`, `d.update({"b": np.ones(n)})`
        if method in _GETTING and isinstance(grandparent, cst.Call):  # (`setdefault` returns the item too)
            return _taken_out(grandparent, ancestors[2:], name, consumes, reads_only)
        return f"`{name}.{method}(...)` may hand out the items' arrays"
    if isinstance(parent, (cst.Return, cst.ComparisonTarget, cst.Comparison)) or _returned(ancestors):
        return None  # `return name`, `return name, n`, `k in name`: the items are the same in both
    if isinstance(parent, cst.Arg) and not parent.star and isinstance(grandparent, cst.Call) and reads_only(grandparent):
        return None  # `len(counts)`, `np.asarray(counts)`: copies numbers out, keeps no item (`np.atleast_1d(*L)` does)
    if isinstance(parent, cst.Arg) and not parent.star and isinstance(grandparent, cst.Call) and reads_items(grandparent, node):
        return None  # `forward(params, X)` computing `X @ params["W"]`: reads the items into new values
    if isinstance(parent, cst.For) and parent.iter is node and (dict_like or _reads_rows_only(parent)):
        return None  # `for k in params:` iterates keys; `for layer in layers: total += layer.sum()` reads items
    return f"`{name}` is used as a whole (passed on, aliased or iterated)"


def _reads_rows_only(loop: cst.For) -> bool:
    """``for layer in layers:`` whose loop variable the body only reads into new values: an operand of arithmetic or
    a comparison, its shape, a method making a new array (``layer.sum()``, not with ``out=``); never rebound, updated,
    stored or handed on (hunt51 FP2)."""
    from np2jax.analysis.aliasing import FRESH_METHODS  # (aliasing imports this module)
    from np2jax.analysis.private_arguments import _read_only_use

    if not isinstance(loop.target, cst.Name):
        return False
    name = loop.target.value
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [loop.body] + ([loop.orelse] if loop.orelse is not None else [])
    while stack:
        node = stack.pop()
        for child in inner_nodes(node):
            parents[child] = node
            stack.append(child)
    for node, parent in parents.items():
        if not (isinstance(node, cst.Name) and node.value == name) or (isinstance(parent, cst.Attribute) and parent.attr is node):
            continue
        if _read_only_use(node, parent):
            continue
        call = parents.get(parent)
        if (isinstance(parent, cst.Attribute) and parent.attr.value in FRESH_METHODS and isinstance(call, cst.Call)
                and call.func is parent and not any(a.keyword is not None and a.keyword.value == "out" for a in call.args)):
            continue  # `layer.sum()`
        return False
    return True


def _taken_out(item: cst.CSTNode, ancestors: tuple, name: str, consumes, reads_only) -> str | None:
    """Why the read ``item`` (``name[k]``, ``name.get(k)``) may leave the item's array, or a view of it, held by
    something else: the expressions around it that may be it (a view ``[:2]``, ``.T``, ``.reshape``, ``np.asarray``,
    a call of a function that may return it, a branch of ``a if c else b``, a display or comprehension element)
    are followed up to an assignment, a store, a loop or a ``yield``; arithmetic, a comparison, a NumPy function or
    method making a new array, or a read by ``len``/``sum`` end the search (a new value)."""
    child = item
    called = None  # a call the item was passed to (or called a method of) that may keep it or return it
    for holder in ancestors:
        if isinstance(holder, cst.BinaryOperation) and isinstance(child, (cst.List, cst.Tuple, cst.ListComp)):
            child = holder  # `[a] + [d["a"]]`: a list holding the item
            continue
        if isinstance(holder, cst.BooleanOperation):
            child = holder  # `flag and d["a"]` is the item itself
            continue
        if isinstance(holder, cst.Expr) and called is not None:
            return f"an item of `{name}` is passed to `{called}`, which may keep it"
        if isinstance(holder, cst.Return) and any(isinstance(a, cst.Try) and a.finalbody is not None for a in ancestors):
            return f"an item of `{name}` is returned before a `finally` block runs"
        if isinstance(holder, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison,
                               cst.ComparisonTarget, cst.SubscriptElement, cst.Index, cst.Slice, cst.If, cst.While,
                               cst.Return, cst.Expr, cst.Assert)):
            return None  # a new value, an index, a test, or what the function returns (nothing writes after)
        if isinstance(holder, cst.Call):
            method = holder.func.attr.value if isinstance(holder.func, cst.Attribute) else None
            if holder.func is not child and method in _STORES:
                return f"an item of `{name}` is stored in another container"
            if consumes(holder, child) or reads_only(holder, builtins_only=True):
                return None  # `d["a"].sum()`, `np.dot(d["a"], b)`, `len(d["a"])` (not `np.asarray(d["a"])`: itself)
            called = _callee_name(holder)
            child = holder  # `np.asarray(d["a"])`, `d["a"].reshape(-1)`, `f(d["a"])`: may be the item
            continue
        if isinstance(holder, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
            if getattr(holder, "value", None) is child:
                return f"`... = {name}[...]` binds an item's array (or a view of it) to another name"
            return None  # (the item is a target: `d[k] = ...` is judged elsewhere)
        if isinstance(holder, (cst.For, cst.CompFor)):
            if holder.iter is child:
                return f"an item of `{name}` is iterated"
            child = holder
            continue
        if isinstance(holder, (cst.Yield, cst.WithItem, cst.Lambda)):
            return f"an item of `{name}` is yielded or captured"
        child = holder  # displays, `a if c else b`, comprehensions, views (`[:2]`, `.T`), arguments
    return f"an item of `{name}` is used where np2jax cannot follow it"


def _displays_of_new_items(call: cst.Call, new_item) -> bool:
    """Every argument of ``call`` is a list, tuple or dict display of new arrays or numbers (no keyword, no star)."""
    for arg in call.args:
        value = arg.value
        if arg.keyword is not None or arg.star or not isinstance(value, (cst.List, cst.Tuple, cst.Dict)):
            return False
        if not all(isinstance(e, (cst.Element, cst.DictElement)) and new_item(e.value) for e in value.elements):
            return False
    return bool(call.args)


def _callee_name(call: cst.Call) -> str:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else "a call"


def _rebound_each_time(function: cst.FunctionDef, store: cst.CSTNode, name: str) -> bool:
    """``store`` is in no loop, or the innermost loop around it binds ``name`` anew (``res = X * i; d[i] = res``):
    a store run again by its loop of a name bound outside it stores the same array twice."""
    loop = None
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(function.body, None)]
    while stack:
        node, around = stack.pop()
        if node is store:
            loop = around
            break
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        inner = node if isinstance(node, (cst.For, cst.While)) else around
        stack.extend((child, inner) for child in inner_nodes(node))
    if loop is None:
        return True
    return any(isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name) and n.target.value == name
               for n in descendants(loop.body))


def read_after(function: cst.FunctionDef, site: cst.CSTNode, name: str) -> bool:
    """Whether ``function`` may use ``name``'s array after ``site`` (a call passing it, a statement storing it): a
    use of the name later in the body, anywhere in a loop around the site, elsewhere in the site's own statement
    (``return G, reg(G)``: the tuple holds ``G`` too), or in a nested function or lambda (which may run at any time).
    Rebinding the name (``res = ...``) is not a use of the array."""
    found_call = False
    loops: list[cst.CSTNode] = []
    statement: cst.CSTNode | None = None
    stack: list[tuple[cst.CSTNode, tuple]] = [(function.body, ())]
    while stack:  # (source order: children pushed reversed)
        node, around = stack.pop()
        if node is site:
            found_call, loops = True, [loop for loop in around if isinstance(loop, (cst.For, cst.While))]
            statement = next((s for s in reversed(around) if isinstance(s, cst.BaseSmallStatement)), None)
            continue  # (its own use is the one being judged)
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if any(isinstance(n, cst.Name) and n.value == name for n in descendants(node)):
                return True
            continue
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            continue  # `res = ...`: a new binding
        if isinstance(node, cst.Name) and node.value == name and found_call:
            return True
        inner = around + (node,) if isinstance(node, (cst.For, cst.While, cst.BaseSmallStatement)) else around
        stack.extend((child, inner) for child in reversed(inner_nodes(node)))
    if statement is not None and _uses(statement, name, site):
        return True
    return any(_uses(loop, name, site) for loop in loops)


def _uses(node: cst.CSTNode, name: str, site: cst.CSTNode) -> bool:
    """A read of ``name`` under ``node`` outside ``site`` (a binding ``name = ...`` is not one)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is site or (isinstance(current, cst.AssignTarget) and isinstance(current.target, cst.Name)):
            continue
        if isinstance(current, cst.Name) and current.value == name:
            return True
        stack.extend(inner_nodes(current))
    return False
