"""What the gate finds: findings, their kinds and the outcome of a gate run (data only)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

PENDING, FILE_ERROR, REFERENCE_MISMATCH = "pending-migration", "file-error", "reference-mismatch"


@dataclass(frozen=True)
class GateRule:
    """A finding kind of the gate's own, documented like a rule (SARIF needs every rule's help)."""

    id: str
    name: str
    severity: str
    summary: str
    help: str


GATE_RULES = (
    GateRule(
        PENDING, "pending-migration", "warning",
        "`np2jax migrate` would still change this function.",
        "The function still uses NumPy where np2jax has a JAX translation. Run `np2jax migrate --write` "
        "(or `np2jax review`) on the file, or record the current state with `np2jax gate --update-baseline`.",
    ),
    GateRule(
        FILE_ERROR, "file-error", "error",
        "np2jax cannot process this file.",
        "The file cannot be read, decoded or parsed, so nothing in it can be checked. The message says why.",
    ),
    GateRule(
        REFERENCE_MISMATCH, "reference-mismatch", "error",
        "The function no longer computes what the reference version computes.",
        "`np2jax check` ran the reference version of the function (from `--reference`) and the current one on "
        "the same inputs and the outputs differ, or the current one fails where the reference ran.",
    ),
)


@dataclass(frozen=True)
class Finding:
    path: str  # as found under the PATH argument
    file: Path  # where it is on disk
    code: str
    severity: str  # error | warning | info
    message: str
    line: int  # 1-based, in the current file
    col: int
    end_line: int
    end_col: int  # exclusive
    qualname: str  # the enclosing function, or <module>
    fingerprint: str
    state: str = "new"  # new | baselined

    def key(self, root: Path) -> tuple[str, str, str]:
        return (relative_key(self.file, root), self.code, self.fingerprint)

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} [{self.severity}] {self.message}"


@dataclass
class GateOutcome:
    findings: list[Finding]
    scanned: list[str]  # display paths of every file looked at
    baseline: str | None = None
    fixed: list[dict] = field(default_factory=list)  # baseline entries no longer found
    checks: list = field(default_factory=list)  # reference check records (``--reference``)

    @property
    def new(self) -> list[Finding]:
        return [f for f in self.findings if f.state == "new"]

    @property
    def failed_checks(self) -> list:
        """Functions that differ from the reference, or fail where the reference ran."""
        return [check for check in self.checks if check.failed]

    @property
    def passed(self) -> bool:
        return not self.new and not self.failed_checks


def relative_key(file: Path, root: Path) -> str:
    """The path a baseline stores: relative to the baseline's folder, with forward slashes."""
    return Path(os.path.relpath(os.path.abspath(file), os.path.abspath(root))).as_posix()
