"""Diagnostics are data: what was found, where, and what to use instead."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass


class Severity(str, enum.Enum):
    """How bad a finding is.

    ``error``: the code cannot run (or cannot run equivalently) under JAX as it is;
    ``warning``: it may behave differently, a person should look;
    ``info``: a note about a change or a known precision difference.
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class FixSafety(str, enum.Enum):
    """Whether a rule's rewrite preserves behaviour by construction."""

    SAFE = "safe"  # equivalent by construction, applied by default
    UNSAFE = "unsafe"  # may change behaviour, applied only on request
    NONE = "none"  # the rule only reports


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    path: str
    line: int  # 1-based
    col: int  # 1-based, like ruff and editors
    end_line: int
    end_col: int  # 1-based, exclusive
    use_instead: str = ""

    def to_json(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data

    def format(self) -> str:
        hint = f" (use instead: {self.use_instead})" if self.use_instead else ""
        return f"{self.path}:{self.line}:{self.col}: {self.code} [{self.severity.value}] {self.message}{hint}"
