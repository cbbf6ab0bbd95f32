# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""A finding, and the base class that every check of the doctor derives from.

A check is a small class: a ``code``, a ``severity``, the ``why`` that holds whenever it fires,
and a ``check(facts)`` that returns a :class:`Finding` (built with ``found``) or None. Defining
the subclass registers it, as sp-repo-review finds its checks, so adding a finding is adding one
class (and its section in the troubleshooting page); nothing else grows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

if TYPE_CHECKING:
    from ._environment import Facts

__all__ = ["SEVERITIES", "Check", "Finding", "Severity"]

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


class Check:
    """Base of every check; subclasses are registered by being defined."""

    code: ClassVar[str]
    severity: ClassVar[Severity]
    why: ClassVar[str]

    _registry: ClassVar[dict[str, type[Check]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        for attribute in ("code", "severity", "why"):
            if not isinstance(getattr(cls, attribute, None), str):
                raise TypeError(f"{cls.__name__} must define {attribute} as a string")
        if cls.severity not in SEVERITIES:
            raise ValueError(f"{cls.__name__}.severity {cls.severity!r} is not in {SEVERITIES}")
        if cls.code in Check._registry:
            raise ValueError(f"{cls.__name__}: {cls.code!r} is the code of another check")
        Check._registry[cls.code] = cls

    @classmethod
    def registered(cls) -> tuple[type[Check], ...]:
        """Every check, in the order they were defined."""
        return tuple(Check._registry.values())

    @classmethod
    def check(cls, facts: Facts) -> Finding | None:
        """The finding for these facts, or None when all is well."""
        raise NotImplementedError

    @classmethod
    def found(cls, seen: str, fix: str) -> Finding:
        """The finding of this check: what was seen here and what to do about it."""
        return Finding(cls.code, cls.severity, seen, cls.why, fix)
