"""The syntax of ``if`` branches the conditional analysis (conditionals.py) converts: the ``if``/``elif`` chain,
the simple statements of a block, what each assigns (names, ``acc += v`` as ``acc + (v)``, element writes
``x[i] = v``) and what it returns.  Pure syntax: no scopes, no values."""

from __future__ import annotations

import libcst as cst


def written_value(value: cst.BaseExpression) -> cst.BaseExpression:
    """The array a branch's write ``x[i] = v`` updates (``x``), ``acc + (v)`` for ``acc += v``, or the value a
    branch assigns."""
    target = subscript_write(value) if isinstance(value, (cst.Assign, cst.AugAssign)) else None
    if target is not None:
        return target.value
    return augmented_value(value) if isinstance(value, cst.AugAssign) else value


def if_chain(node: cst.If) -> tuple[list[cst.BaseExpression], list[cst.BaseSuite], cst.BaseSuite | None]:
    """The tests and bodies of ``if``/``elif``..., and the final ``else`` body (or None)."""
    tests, bodies = [node.test], [node.body]
    orelse = node.orelse
    while isinstance(orelse, cst.If):
        tests.append(orelse.test)
        bodies.append(orelse.body)
        orelse = orelse.orelse
    return tests, bodies, orelse.body if orelse is not None else None


def small_statements(body: cst.BaseSuite) -> list[cst.BaseSmallStatement] | None:
    """The statements of a block when each is a simple one (None if any is compound)."""
    if isinstance(body, cst.SimpleStatementSuite):
        return list(body.body)
    statements = []
    for line in body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            return None
        statements.extend(line.body)
    return statements


def assignments(body: cst.BaseSuite, writes: bool = False,
                rebinds: dict[cst.Expr, tuple[str, ...]] | None = None) -> list[list[tuple[str, cst.BaseExpression]]] | None:
    """Per statement, ``[(name, value)]``, when the block only assigns names (``y = a`` or ``a, b = b, a``, also
    ``acc += v``, whose value is ``acc + (v)``); else None.

    ``writes``: also accept writes into a named array (``x[i] = v``, ``x[i] += v``), which the functional
    updates turn into ``x = x.at[i].set(v)`` first; their "value" is the statement itself.
    """
    statements = small_statements(body)
    if not statements:
        return None
    found = []
    for statement in statements:
        if rebinds and isinstance(statement, cst.Expr) and len(rebinds.get(statement, ())) == 1:
            found.append([(rebinds[statement][0], statement.value)])  # `f(p)` that becomes `p = f(p)` (NPJ203)
            continue
        if writes and subscript_write(statement) is not None:
            found.append([(subscript_write(statement).value.value, statement)])
            continue
        if isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name) and type(statement.operator) in AUGMENTED:
            found.append([(statement.target.value, statement)])
            continue
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
            return None
        target, value = statement.targets[0].target, statement.value
        if isinstance(target, cst.Name):
            found.append([(target.value, value)])
        elif (
            isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements)
            and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements)
            and all(isinstance(e, cst.Element) for e in value.elements)
        ):
            found.append([(t.value.value, v.value) for t, v in zip(target.elements, value.elements)])
        else:
            return None
    return found


WRITE_OPERATORS = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
AUGMENTED = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
             cst.DivideAssign: cst.Divide}
_BARE = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary)


def augmented_value(statement: cst.AugAssign) -> cst.BinaryOperation:
    """``acc += v`` -> ``acc + (v)``: the value the name is bound to (for a name holding a Python number or an
    array the functional updates let rebind)."""
    value = statement.value
    if not isinstance(value, _BARE) or value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if not value.lpar else value
    return cst.BinaryOperation(left=statement.target, operator=AUGMENTED[type(statement.operator)](), right=value)


def subscript_write(statement: cst.CSTNode) -> cst.Subscript | None:
    """The target of ``x[i] = v`` / ``x[i] += v`` (``-=``, ``*=``, ``/=``) with ``x`` a name, else None."""
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
    elif isinstance(statement, cst.AugAssign) and isinstance(statement.operator, WRITE_OPERATORS):
        target = statement.target
    else:
        return None
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        return target
    return None


def assigned_values(body: cst.BaseSuite) -> dict[str, cst.BaseExpression]:
    """name -> value for a block that ``assignments`` accepts."""
    return {name: augmented_value(value) if isinstance(value, cst.AugAssign) else value
            for statement in assignments(body) or () for name, value in statement}


def returned(body: cst.BaseSuite) -> cst.BaseExpression | None:
    """The value of a block that is one ``return value``, else None."""
    statements = small_statements(body)
    if statements is None or len(statements) != 1 or not isinstance(statements[0], cst.Return):
        return None
    return statements[0].value


def following_return(line: cst.BaseStatement | None) -> cst.BaseExpression | None:
    if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Return):
        return line.body[0].value
    return None
