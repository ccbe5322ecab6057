"""Rule documentation, rendered from the rules themselves.

``python -m np2jax.docs`` rewrites ``docs/rules/``; ``np2jax explain CODE``
prints the same text; a test fails when the committed pages drift.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from np2jax.codes import RULES
from np2jax.rule import Rule

FIX_SAFETY_TEXT = {
    "safe": "Safe: the rewrite is equivalent by construction and applied by default.",
    "unsafe": "Unsafe: applied only on request, and always reported.",
    "none": "No automatic fix: the code is reported and left unchanged.",
}


def render_rule(rule: type[Rule]) -> str:
    doc = rule.DOC
    parts = [
        f"# {rule.CODE} {rule.NAME}",
        f"Severity: **{rule.SEVERITY.value}**. Message: {rule.MESSAGE.replace('{name}', '<name>')}",
        "## What it does",
        doc.what,
        "## Why",
        doc.why,
        "## Example",
    ]
    if not rule.EXAMPLES_JIT:
        parts.append("(Shown as `np2jax migrate --no-jit` writes it; without `--no-jit`, functions that can be traced also get `@jax.jit`, see NPJ300.)")
    for example in rule.EXAMPLES:
        if example.title:
            parts.append(f"*{example.title}*")
        parts.append("```python\n" + example.source.rstrip() + "\n```")
        if example.after is not None:
            parts.append("becomes\n\n```python\n" + example.expected.rstrip() + "\n```")
        else:
            parts.append("is left unchanged" + (" and reported." if example.diagnostics else "."))
        if example.diagnostics:
            parts.append("Diagnostics: " + ", ".join(example.diagnostics))
    parts += [
        "## Use instead",
        doc.use_instead,
        "## Fix safety",
        FIX_SAFETY_TEXT[rule.FIX_SAFETY.value],
        "## Known problems",
        doc.known_problems,
    ]
    return "\n\n".join(parts) + "\n"


def render_index() -> str:
    lines = ["# Rules", "", "| code | name | severity | fix |", "| --- | --- | --- | --- |"]
    for rule in RULES:
        lines.append(f"| [{rule.CODE}]({rule.CODE}.md) | {rule.NAME} | {rule.SEVERITY.value} | {rule.FIX_SAFETY.value} |")
    return "\n".join(lines) + "\n"


def expected_pages() -> dict[str, str]:
    pages = {f"{rule.CODE}.md": render_rule(rule) for rule in RULES}
    pages["README.md"] = render_index()
    return pages


def write_pages(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in expected_pages().items():
        (directory / name).write_text(text)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "rules"
    write_pages(target)
    print(textwrap.shorten(f"wrote {len(RULES)} rule pages to {target}", 200))
