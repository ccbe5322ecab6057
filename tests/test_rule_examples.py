"""Every rule's own examples are tests: exact output and exact diagnostic codes."""

from __future__ import annotations

import pytest

from np2jax.codes import RULES
from np2jax.engine import Options, migrate_source

EXAMPLES = [
    pytest.param(rule, example, id=f"{rule.CODE}-{index}")
    for rule in RULES
    for index, example in enumerate(rule.EXAMPLES)
]


def test_every_rule_has_examples():
    for rule in RULES:
        assert rule.EXAMPLES, f"{rule.CODE} has no examples"


@pytest.mark.parametrize("rule, example", EXAMPLES)
def test_example(rule, example):
    result = migrate_source(example.source.encode(), "example.py", Options(jit=rule.EXAMPLES_JIT))
    assert result.error is None
    assert result.output.decode() == example.expected
    codes = sorted(d.code for d in result.diagnostics)
    assert codes == sorted(example.diagnostics)


@pytest.mark.parametrize("rule, example", EXAMPLES)
def test_example_is_idempotent(rule, example):
    options = Options(jit=rule.EXAMPLES_JIT)
    once = migrate_source(example.source.encode(), "example.py", options).output
    assert migrate_source(once, "example.py", options).output == once
