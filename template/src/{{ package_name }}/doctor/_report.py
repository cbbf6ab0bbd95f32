# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor's verdict: the facts it gathered and the findings its checks drew from them."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ._diagnoses import evaluate
from ._gather import gather

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ._environment import Facts
    from ._findings import Finding

__all__ = ["Report", "collect"]


class Report(NamedTuple):
    """Everything the doctor saw, and its findings (worst first)."""

    facts: Facts
    findings: list[Finding]

    @property
    def healthy(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity == "error" for f in self.findings)


def collect(*, probe: bool = False, paths: Iterable[str] | None = None) -> Report:
    """Gather the facts and run every check on them.

    Parameters
    ----------
    probe
        Also import CuPy, to confirm what the package decides.
    paths
        Where to read installed packages' metadata; default ``sys.path``.
    """
    facts = gather(probe=probe, paths=paths)
    return Report(facts, evaluate(facts))
