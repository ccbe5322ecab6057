"""The fast-dispatch visitor bases behave like libcst's, and the walker's exact-type shortcuts cover every case."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import libcst as cst
import numpy as np
import pytest

from np2jax.analysis.scope import SCOPE_NODES, collect_scopes
from np2jax.visitors import TRIVIA, FastTransformer, FastVisitor, child_nodes, exact_types, fields_in_visit_order, inner_nodes, visit

SOURCE = (
    "import numpy as np\n"
    "class C:\n"
    "    def f(self, x):\n"
    "        g = lambda y: [a for a in y] + list({b for b in y}) + list({c: c for c in y}) + list(d for d in y)\n"
    "        return g(x)\n"
)


def test_scope_nodes_cover_every_scope_the_collector_creates():
    scopes = collect_scopes(cst.parse_module(SOURCE)).scopes
    assert {type(node) for node in scopes} == SCOPE_NODES


def _events(base):
    class Recorder(base):
        def __init__(self):
            super().__init__()
            self.events = []

        def visit_Name(self, node):
            self.events.append(("visit", node.value))

        def visit_Lambda(self, node):
            self.events.append(("lambda",))
            return False  # children skipped, as with libcst

    if base is FastTransformer or base is cst.CSTTransformer:
        def leave_Name(self, original, updated):
            self.events.append(("leave", original.value))
            return updated.with_changes(value=updated.value.upper()) if updated.value == "x" else updated
    else:
        def leave_Name(self, original):
            self.events.append(("leave", original.value))
    Recorder.leave_Name = leave_Name
    recorder = Recorder()
    result = cst.parse_module(SOURCE).visit(recorder)
    return recorder.events, result.code


@pytest.mark.parametrize("fast, libcst_base", [(FastVisitor, cst.CSTVisitor), (FastTransformer, cst.CSTTransformer)])
def test_fast_dispatch_matches_libcst(fast, libcst_base):
    assert _events(fast) == _events(libcst_base)
    events, code = _events(fast)
    assert ("lambda",) in events and ("visit", "a") not in events  # False skipped the lambda's children
    if fast is FastTransformer:
        assert "def f(self, X):" in code and "return g(X)" in code


def test_attribute_hooks_are_refused_rather_than_never_called():
    with pytest.raises(TypeError, match="attribute hooks"):

        class Bad(FastVisitor):
            def visit_Call_func(self, node):
                pass


# --- np2jax.visitors.visit: libcst's traversal without the rebuild ----------------------------
ROOT = Path(__file__).resolve().parent.parent
NUMPY = Path(np.__file__).parent
TRICKY = (
    "from . import (a, b as c)\nfrom x import *\n"
    "@dec(1)\nasync def f(a: int = 1, /, *args, b=2, **kw) -> 'T':\n"
    "    async with g() as (h, i), j:\n        x = yield\n        y: int = 3\n    global q\n"
    "    try:\n        pass\n    except* (E, F) as e:\n        raise X from e\n    finally:\n        del x[1:2, ::3]\n"
    "    match p:\n        case [1, *rest] | {'k': v, **kw} if v: z = f'{v!r:>{w}}'\n        case C(a=1): ...\n"
    "    return [k async for k in m if k], {**d}, (*s,), lambda *, k=1: k, not a if b else c @ d, x[...]\n"
    "while (n := n - 1) > 0: print(n, sep='', end=''); continue\nelse:\n    assert a, 'm'\n"
    "class K(B, metaclass=M):\n    '''doc'''\n    x = 1; y = 2  # c\n"
)


def _sources():
    yield "tricky", TRICKY
    for path in sorted((ROOT / "corpus" / "modules").glob("*.py")):
        yield path.name, path.read_text()
    for relative in ("_core/tests/test_multiarray.py", "lib/_function_base_impl.py", "ma/core.py"):
        if (NUMPY / relative).exists():
            yield relative, (NUMPY / relative).read_text()


@pytest.mark.parametrize("name, source", list(_sources()), ids=lambda v: v if len(v) < 60 else "")
def test_visit_order_and_hooks_match_libcst(name, source):
    module = cst.parse_module(source)

    class Recorder(FastVisitor):
        VISITS_TRIVIA = True

        def __init__(self):
            self.events = []

        def on_visit(self, node):
            self.events.append(("visit", id(node)))
            return not isinstance(node, cst.Lambda)  # a skipped subtree is skipped in both

        def on_leave(self, node):
            self.events.append(("leave", id(node)))

    ours, theirs = Recorder(), Recorder()
    assert visit(module, ours) is module
    module.visit(theirs)
    assert ours.events == theirs.events and len(ours.events) > 20

    stack = [module]
    while stack:
        node = stack.pop()
        expected = list(node.children)
        found = child_nodes(node)
        assert len(found) == len(expected) and all(a is b for a, b in zip(found, expected)), type(node).__name__
        stack.extend(expected)


class _Edits(FastTransformer):
    """Edits of every kind libcst allows: replace, remove from a sequence, a body, an optional and a
    sentinel field, and flatten into a sequence."""

    def leave_Name(self, original, updated):
        return updated.with_changes(value="renamed") if updated.value == "x" else updated

    def leave_Pass(self, original, updated):
        return cst.RemoveFromParent()  # a body line that becomes empty is dropped

    def leave_Expr(self, original, updated):
        if isinstance(updated.value, cst.Ellipsis):
            return cst.FlattenSentinel([cst.Expr(cst.Name("a")), cst.Expr(cst.Name("b"))])
        return updated

    def leave_Annotation(self, original, updated):
        return cst.RemoveFromParent()  # optional: Param.annotation becomes None

    def leave_Comma(self, original, updated):
        return cst.RemoveFromParent() if isinstance(updated.whitespace_after, cst.SimpleWhitespace) and updated.whitespace_after.value == "  " else updated

    def leave_Arg(self, original, updated):
        return cst.RemoveFromParent() if isinstance(updated.value, cst.Integer) and updated.value.value == "7" else updated


EDIT_SOURCE = (
    "def f(a: int, b: 'str' = x):\n    pass\n    y = x + 1\n    ...\n    return g(a, 7, b)\n"
    "class C:\n    pass\n"
    "if x:\n    pass\nelse:\n    z = [1,  2]\n"
    "t = (1,  )\n"
)


@pytest.mark.parametrize("source", [EDIT_SOURCE, TRICKY], ids=["edits", "tricky"])
def test_transform_matches_libcst(source):
    module = cst.parse_module(source)

    def outcome(run):
        try:
            return run().code
        except TypeError as error:  # a required child removed: both refuse it
            return type(error)

    assert outcome(lambda: visit(module, _Edits())) == outcome(lambda: module.visit(_Edits()))
    if source is EDIT_SOURCE:
        ours, theirs = visit(module, _Edits()), module.visit(_Edits())
        assert ours.deep_equals(theirs)
        assert "def f(a, b = renamed):" in ours.code and "    a; b\n" in ours.code and "g(a, b)" in ours.code
    else:
        assert outcome(lambda: visit(module, _Edits())) is TypeError  # `y: int = 3`: AnnAssign needs its annotation


def test_transform_returns_unchanged_subtrees_as_they_were():
    module = cst.parse_module(EDIT_SOURCE)
    assert visit(module, FastTransformer()) is module
    edited = visit(module, _Edits())
    assert edited.body[1] is module.body[1] or isinstance(module.body[1].body.body[0].body[0], cst.Pass)
    unchanged = cst.parse_module("import os\nx = 1\n")
    result = visit(unchanged, _Edits())
    assert result.body[0] is unchanged.body[0] and result.body[1] is not unchanged.body[1]


def test_transform_refuses_removing_a_required_child_like_libcst():
    class RemoveNames(FastTransformer):
        def leave_Name(self, original, updated):
            return cst.RemoveFromParent()

    module = cst.parse_module("y = x + 1\n")
    with pytest.raises(TypeError, match="RemovalSentinel"):
        module.visit(RemoveNames())
    with pytest.raises(TypeError, match="RemovalSentinel"):
        visit(module, RemoveNames())


def test_visit_order_table_knows_every_node_type_libcst_defines():
    def subclasses(kind):
        for sub in kind.__subclasses__():
            yield sub
            yield from subclasses(sub)

    concrete = {k for k in subclasses(cst.CSTNode) if dataclasses.is_dataclass(k) and not inspect.isabstract(k)}
    assert len(concrete) > 100
    for kind in concrete:
        names = [name for name, _, _ in fields_in_visit_order(kind)]
        assert set(names) <= {f.name for f in dataclasses.fields(kind)}, kind  # leaves have none
    assert [name for name, _, _ in fields_in_visit_order(cst.Call)][:2] == ["lpar", "func"]


def test_trivia_is_skipped_only_where_no_hook_needs_it():
    module = cst.parse_module(TRICKY + "x = f(a,  # note\n      b)\n")

    def count(kind, base=FastVisitor):
        hooked = type("Counter", (base,), {"n": 0, f"visit_{kind.__name__}": lambda self, node: setattr(self, "n", self.n + 1)})
        ours, theirs = hooked(), hooked()
        visit(module, ours)
        module.visit(theirs)
        return ours.n, theirs.n

    for kind in (cst.Newline, cst.Comment, cst.SimpleWhitespace, cst.Comma, cst.Name, cst.ParenthesizedWhitespace):
        ours, theirs = count(kind)
        assert ours == theirs > 0, kind  # a hook on trivia (or inside it) still sees every one

    class Everything(FastVisitor):  # a generic on_visit without hooks: no trivia, every other node
        def __init__(self):
            self.seen = []

        def on_visit(self, node):
            self.seen.append(node)
            return True

    everything = Everything()
    visit(module, everything)
    trivia = set(TRIVIA)
    expected = []
    stack = [module]
    while stack:
        node = stack.pop()
        expected.append(node)
        stack.extend(reversed([c for c in child_nodes(node) if type(c) not in trivia]))
    assert everything.seen == expected and not any(type(n) in trivia for n in everything.seen)


def test_inner_nodes_are_child_nodes_without_trivia():
    module = cst.parse_module(TRICKY + "x = f(a,  # note\n      b)\n")
    trivia = set(TRIVIA)
    stack = [module]
    while stack:
        node = stack.pop()
        expected = [c for c in child_nodes(node) if type(c) not in trivia]
        found = inner_nodes(node)
        assert len(found) == len(expected) and all(a is b for a, b in zip(found, expected)), type(node).__name__
        stack.extend(child_nodes(node))


def test_exact_types_are_the_classes_isinstance_accepts():
    assert exact_types(cst.Name) == {cst.Name}
    assert exact_types(cst.BaseComp) >= {cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp}
    assert all(not inspect.isabstract(kind) for kind in exact_types(cst.BaseExpression))


def test_custom_dispatch_calls_hooks_directly_only_for_other_types():
    module = cst.parse_module(SOURCE)

    class Plain(FastTransformer):
        def __init__(self):
            self.events = []

        def on_visit(self, node):
            if isinstance(node, cst.Lambda):
                self.events.append(("enter", "lambda"))
            return super().on_visit(node)

        def on_leave(self, original, updated):
            result = super().on_leave(original, updated)
            if isinstance(original, cst.Lambda):
                self.events.append(("exit", "lambda"))
            return result

        def visit_Name(self, node):
            self.events.append(("name", node.value))

        def leave_Name(self, original, updated):
            return updated.with_changes(value=updated.value.upper()) if updated.value == "x" else updated

    class Direct(Plain):
        CUSTOM_DISPATCH = frozenset({cst.Lambda})
        on_visit = Plain.on_visit
        on_leave = Plain.on_leave

    plain, direct = Plain(), Direct()
    assert not Plain._direct and Direct._direct
    assert visit(module, plain).code == visit(module, direct).code == module.visit(Plain()).code
    assert plain.events == direct.events and ("enter", "lambda") in direct.events


def test_on_trivia_must_name_every_trivia_hook_it_stands_for():
    class Counter(FastTransformer):
        TRIVIA_HOOKS = frozenset({"visit_Newline"})

        def __init__(self):
            self.lines = 0

        def visit_Newline(self, node):
            self.lines += 1

        def on_trivia(self, node):
            self.lines += sum(1 for n in _all(node) if isinstance(n, cst.Newline))

    counter, plain = Counter(), type("Plain", (FastTransformer,), {"lines": 0, "visit_Newline": Counter.visit_Newline})()
    module = cst.parse_module(TRICKY + "x = f(a,  # note\n      b)\n")
    visit(module, counter)
    module.visit(plain)
    assert counter.lines == plain.lines > 10
    with pytest.raises(TypeError, match="on_trivia"):

        class Bad(Counter):
            def visit_Comma(self, node):
                pass


def _all(node):
    yield node
    for child in child_nodes(node):
        yield from _all(child)
