"""docs/rules is generated from the rules; it must never drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from np2jax.codes import RULES
from np2jax.docs import expected_pages

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_rule_pages_are_current():
    for name, text in expected_pages().items():
        page = DOCS / name
        assert page.exists(), f"missing {page}; run python -m np2jax.docs"
        assert page.read_text() == text, f"{page} is stale; run python -m np2jax.docs"


def test_codes_are_unique_and_well_formed():
    codes = [rule.CODE for rule in RULES]
    assert len(codes) == len(set(codes))
    assert all(code.startswith("NPJ") and len(code) == 6 and code[3:].isdigit() for code in codes)
    for rule in RULES:
        assert "{" not in rule.DOC.use_instead


def test_explain_prints_the_page():
    out = subprocess.run([sys.executable, "-m", "np2jax", "explain", "NPJ110"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout == (DOCS / "NPJ110.md").read_text()
