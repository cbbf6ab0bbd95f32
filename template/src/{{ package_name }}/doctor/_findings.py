# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""A finding of the doctor: what one of its checks (``_diagnoses.CHECKS``) saw and what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SEVERITIES", "Finding", "Severity"]

Severity = Literal["error", "warning", "info"]
# Worst first: the order findings are reported in.
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One problem (or note): its code, severity, what was seen, why it matters, how to fix it."""

    code: str
    severity: Severity
    seen: str
    why: str
    fix: str

    def __post_init__(self) -> None:
        # A finding the user cannot act on is a bug in the check: refuse it where it is made,
        # not in the renderer, so no report ever prints "why: None".
        for name in ("code", "seen", "why", "fix"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"Finding.{name} must be a non-empty string, not {value!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"Finding.severity must be one of {SEVERITIES}, not {self.severity!r}")
