"""render() is Module.code with statement slices; reparse() builds exactly the tree a whole-file parse builds."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from np2jax.engine import Options, _parse, _transform, migrate_source
from np2jax.render import render, reparse

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "corpus" / "modules").glob("*.py"))

EDGE_CASES = {
    "header comments, no trailing newline": "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport numpy as np\n\n\ndef f(x):\n    return np.sum(x)",
    "comments between and after": (
        '"""doc"""\nimport numpy as np\n# lead of f\n\n\ndef f(x):\n    y = np.zeros(3)\n    y[0] = x  # set\n    return y\n'
        "    # indented trailing comment\n# dedented trailing comment\n\nclass C:\n    def m(self, x):\n        return np.abs(x)\n\n# footer\n\n"
    ),
    "tabs and CRLF": "import numpy as np\r\n\r\ndef f(x):\r\n\tif x:\r\n\t\treturn np.cos(x)\r\n\treturn np.sin(x)\r\n",
    "first statement changes": "def f(x):\n    import numpy as np\n    return np.exp(x)\n",
    "empty": "",
    "only comments": "# nothing\n",
}


@pytest.mark.parametrize("source", [*EDGE_CASES.values(), *(p.read_text() for p in CORPUS)], ids=[*EDGE_CASES, *(p.name for p in CORPUS)])
def test_render_is_module_code_and_reparse_equals_a_whole_file_parse(source):
    module = _parse(source.encode())
    rendered_old = render(module)
    assert rendered_old.code == module.code
    assert "".join(rendered_old.statements) in module.code
    new, *_ = _transform(module, "m.py", source.encode(), Options())
    rendered = render(new)
    assert rendered.code == new.code
    assert render(new, reuse=rendered_old) == rendered  # (code and statements)
    rebuilt = reparse(rendered.code, new, rendered, module, rendered_old)
    whole = cst.parse_module(rendered.code)
    assert rebuilt.deep_equals(whole)
    assert rebuilt.code == rendered.code


@pytest.mark.parametrize("source", ["x = 1\ny = 2", "x = 1\ny = 2\n", "x = 1\ny = 2\n# footer", "if a:\r\n\tx = 1\r\n"])
def test_render_reusing_another_modules_statements_is_module_code(source):
    module = cst.parse_module(source)
    old = render(module)
    for body in (module.body[::-1], [*module.body, *module.body], [cst.parse_statement("z = 3"), *module.body]):
        for trailing in (True, False):
            new = module.with_changes(body=body, has_trailing_newline=trailing)
            assert render(new, reuse=old).code == new.code
            assert render(new, reuse=old) == render(new)
    other = module.with_changes(default_indent="  ", default_newline="\r\n", body=[cst.parse_statement("if x:\n    y = 1\n")])
    assert render(other, reuse=render(other.with_changes(default_indent="    "))).code == other.code


def test_statements_that_changed_are_parsed_and_the_rest_reused():
    source = "import numpy as np\n\nSCALE = 2.0\n\n\ndef f(x):\n    return np.sum(x)\n\n\ndef g(x):\n    return x\n"
    module = _parse(source.encode())
    new, *_ = _transform(module, "m.py", source.encode(), Options())
    rendered = render(new)
    rebuilt = reparse(rendered.code, new, rendered, module, render(module))
    reused = [statement for statement in rebuilt.body if any(statement is old for old in module.body)]
    assert [cst.Module(body=[s]).code.strip().splitlines()[0] for s in reused] == ["SCALE = 2.0", "def g(x):"]
    assert rebuilt.deep_equals(cst.parse_module(rendered.code))


def test_migrated_output_still_passes_the_safety_net_with_a_reused_tree():
    source = EDGE_CASES["comments between and after"].encode()
    result = migrate_source(source, "m.py")
    assert result.status == "changed", result.error
    assert migrate_source(result.output, "m.py").status == "unchanged"
