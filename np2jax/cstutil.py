"""Small builders for libcst nodes."""

from __future__ import annotations

import libcst as cst

from np2jax.visitors import child_nodes

_EQUAL = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def dotted(name: str) -> cst.BaseExpression:
    """``"jnp.linalg.norm"`` -> the Attribute chain."""
    parts = name.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def call(func: str | cst.BaseExpression, *args: cst.BaseExpression | cst.Arg) -> cst.Call:
    """``func(args)``; an argument given as a keyword ``cst.Arg`` is written ``key=value``."""
    callee = dotted(func) if isinstance(func, str) else func
    arguments = [
        arg.with_changes(equal=_EQUAL) if isinstance(arg, cst.Arg) and arg.keyword is not None
        else arg if isinstance(arg, cst.Arg) else cst.Arg(arg)
        for arg in args
    ]
    arguments = [arg.with_changes(comma=_COMMA) for arg in arguments[:-1]] + arguments[-1:]
    return cst.Call(func=callee, args=arguments)


def change_keywords(args, changes) -> list[cst.Arg]:
    """Rename, replace (``(keyword, value)``) or drop (``None``) keyword arguments; a change keyed
    ``"+name"`` (``(name, value)``) appends ``name=value`` unless the call already passes ``name``."""
    result = []
    for arg in args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword not in changes:
            result.append(arg)
            continue
        change = changes[keyword]
        if change is None:
            continue
        new_keyword, new_value = change
        arg = arg.with_changes(keyword=cst.Name(new_keyword))
        result.append(arg if new_value is None else arg.with_changes(value=new_value))
    if result and len(result) < len(args):
        last = args[-1].comma
        result[-1] = result[-1].with_changes(comma=last)
    present = {arg.keyword.value for arg in result if arg.keyword is not None}
    for keyword, change in changes.items():
        if keyword.startswith("+") and change is not None and change[0] not in present:
            added = cst.Arg(value=change[1], keyword=cst.Name(change[0]),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
            if result:  # the new last argument takes over a trailing comma
                added = added.with_changes(comma=result[-1].comma)
                result[-1] = result[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            result.append(added)
    return result


def trailing_comment_lines(body: cst.BaseSuite) -> int:
    """Comment lines at the end of a block, which the block's last statement does not reach."""
    lines = 0
    node: cst.CSTNode | None = body
    while node is not None:
        if isinstance(node, cst.IndentedBlock):
            lines += len(node.footer)
            node = node.body[-1] if node.body else None
        elif isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            break
        else:
            children = child_nodes(node)
            node = children[-1] if children else None
    return lines


def target_parts(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The single targets of an assignment target (``a, (self.P, *b[0])`` -> a, self.P, b[0])."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [part for element in target.elements for part in target_parts(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_parts(target.value)
    return [target]


def number_literal(node: cst.BaseExpression | None) -> int | float | None:
    """The value of a number literal, signed or not (``3``, ``-0.5``, ``+1``); None for anything else."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        value = number_literal(node.expression)
        return None if value is None else (-value if isinstance(node.operator, cst.Minus) else value)
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    return None


def argument_for(call: cst.Call, function: cst.FunctionDef, param: str) -> cst.BaseExpression | None:
    """What ``call`` (a call of ``function``) passes for its parameter ``param``: by keyword or by position;
    None when it passes nothing for it or unpacks ``*args`` (the position is then unknown)."""
    if any(a.star for a in call.args):
        return None
    given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param), None)
    if given is not None:
        return given
    names = [p.name.value for p in function.params.params]
    positional = [a for a in call.args if a.keyword is None]
    position = names.index(param) if param in names else None
    return positional[position].value if position is not None and position < len(positional) else None


def string_valued(expr: cst.BaseExpression) -> bool:
    """A string literal, or a method of one (``",".join(names)``, ``"{}".format(n)``): a str, never an array."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        expr = expr.func.value
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def bool_identity_operands(node: cst.Comparison) -> list[cst.BaseExpression]:
    """The operands ``node`` tests by identity against ``True`` or ``False`` (``x is True``, ``False is not x``)."""
    sides = [node.left, *(c.comparator for c in node.comparisons)]
    found = []
    for position, target in enumerate(node.comparisons):
        if isinstance(target.operator, (cst.Is, cst.IsNot)):
            for value, other in ((sides[position], sides[position + 1]), (sides[position + 1], sides[position])):
                if isinstance(other, cst.Name) and other.value in ("True", "False"):
                    found.append(value)
    return found


def size_expression(node: cst.BaseExpression) -> bool:
    """``x.shape[k]`` (``k`` an int literal, signed or not), ``len(x)``, ``x.size``, ``x.ndim``: a Python int."""
    if isinstance(node, cst.Subscript):
        if not (isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)):
            return False
        index = node.slice[0].slice.value
        while isinstance(index, cst.UnaryOperation) and isinstance(index.operator, (cst.Minus, cst.Plus)):
            index = index.expression
        return isinstance(index, cst.Integer)
    if isinstance(node, cst.Attribute):
        return node.attr.value in ("size", "ndim")
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1


ATOMIC = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Call, cst.Attribute, cst.Subscript)


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node``, in parentheses unless it is an atom or has them already."""
    if isinstance(node, ATOMIC) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
