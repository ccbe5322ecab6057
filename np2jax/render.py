"""Render a module with the text of each top-level statement, and re-parse an output cheaply.

The safety net re-parses every changed file and migrates it again.  Most
top-level statements of a changed file are byte-for-byte the statements of the
original, whose parse the engine already holds; only the statements whose text
changed need the parser.  ``reparse`` builds the module ``cst.parse_module``
would build from those pieces: unchanged statements reused, changed ones
parsed one at a time with the original's parser configuration (indent,
newline, encoding), and their leading comments and blank lines moved back from
the fragment's module header onto the statement, where a whole-file parse puts
them.  ``tests/test_render.py`` checks the result is ``deep_equals`` to a
whole-file parse; anything unusual falls back to one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState


@dataclass(frozen=True)
class Rendered:
    code: str
    statements: tuple[str, ...]  # the text of each top-level statement, in order
    # for ``render``'s ``reuse``: the codegen tokens, each top-level statement's node and (start, end) in them,
    # and the module's default indent and newline
    tokens: list[str] = field(default_factory=list, repr=False, compare=False)
    spans: tuple = field(default=(), repr=False, compare=False)
    layout: tuple[str, str] | None = field(default=None, repr=False, compare=False)


def render(module: cst.Module, reuse: Rendered | None = None) -> Rendered:
    """``module.code``, and the slice of it each top-level statement produced (one codegen pass).

    Mirrors ``cst.Module._codegen_impl``; the test suite compares ``code`` with ``module.code``.

    ``reuse``: the ``render`` of another module (the original of a migrated one): a top-level statement of
    ``module`` that is the very same node as one of it is not generated again, its tokens are copied.  A
    top-level statement's tokens depend only on the node and the module's default indent and newline (codegen
    starts it at indent level zero and passes nothing else on from the statements before it), so the result is
    the same.
    """
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    known: dict[int, tuple[cst.CSTNode, int, int]] = {}
    old_tokens: list[str] = []
    if reuse is not None and reuse.layout == (module.default_indent, module.default_newline):
        old_tokens = reuse.tokens
        # (not a statement whose last token a module without a trailing newline dropped)
        known = {id(node): (node, start, end) for node, start, end in reuse.spans if end <= len(old_tokens)}
    for line in module.header:
        line._codegen(state)
    spans = []
    tokens = state.tokens
    for statement in module.body:
        start = len(tokens)
        entry = known.get(id(statement))
        if entry is not None and entry[0] is statement:
            tokens.extend(old_tokens[entry[1]:entry[2]])
        else:
            statement._codegen(state)
        spans.append((statement, start, len(tokens)))
    for line in module.footer:
        line._codegen(state)
    if module.has_trailing_newline:
        if not state.tokens:
            state.add_token(state.default_newline)
    else:
        state.pop_trailing_newline()
    return Rendered("".join(tokens), tuple("".join(tokens[start:end]) for _, start, end in spans), tokens,
                    tuple(spans), (module.default_indent, module.default_newline))


def reparse(output: str, new: cst.Module, rendered: Rendered, old: cst.Module, old_rendered: Rendered) -> cst.Module:
    """The module ``cst.parse_module(output)`` gives, where ``output`` is ``rendered.code`` of ``new``
    and ``old`` (rendered as ``old_rendered``) is the parse of the original file."""
    known = dict(zip(old_rendered.statements, old.body))
    body = []
    config = None  # old.config_for_parsing, built on first use (libcst builds a new one at every access)
    for index, text in enumerate(rendered.statements):
        statement = known.get(text)
        if statement is None:
            if config is None:
                config = old.config_for_parsing
            try:
                fragment = cst.parse_module(text, config=config)
            except cst.ParserSyntaxError:
                return cst.parse_module(output)  # raises the whole file's own error
            if len(fragment.body) != 1 or fragment.footer:
                return cst.parse_module(output)
            statement = fragment.body[0]
            if fragment.header:
                statement = statement.with_changes(leading_lines=(*fragment.header, *statement.leading_lines))
        if index == 0 and statement.leading_lines:
            return cst.parse_module(output)  # a whole-file parse would put these lines in the module header
        body.append(statement)
    return old.with_changes(body=body, header=new.header, footer=new.footer, has_trailing_newline=new.has_trailing_newline)
