# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor as a check of ``rapids doctor`` (rapids-cli), where RAPIDS users look first.

rapids-cli discovers checks through the ``rapids_doctor_check`` entry-point group that the
project's ``pyproject.toml`` registers this function under. It calls each check with
``verbose=`` as a keyword, counts a check that returns as passed (printing a returned string
with ``--verbose``), a check that raises as failed (printing the exception), and prints every
warning the check emitted. The doctor's findings map onto that: an error finding fails the
check, a warning finding is a warning, and the verdict line is the value.

Nothing here imports rapids-cli: the package never depends on it, and ``rapids doctor``
without it installed simply never looks here.
"""

from __future__ import annotations

import warnings

from ._diagnoses import collect

__all__ = ["DoctorError", "rapids_check"]


class DoctorError(RuntimeError):
    """The doctor found at least one error; the message lists each with its fix."""


def rapids_check(verbose: bool = False, **kwargs: object) -> str:
    """The CUDA environment as this package sees it: driver, CUDA wheels, GPU decision.

    Parameters
    ----------
    verbose
        Passed by ``rapids doctor``; the summary is the same either way (rapids-cli decides
        whether to print it).
    **kwargs
        Arguments a later rapids-cli may pass; accepted so such a release still runs the check.

    Raises
    ------
    DoctorError
        When any finding is an error, listing each one's code, what was seen, and the fix.
    """
    # No --probe: importing CuPy inside another tool's process could start CUDA in it.
    report = collect()
    for finding in report.findings:
        if finding.severity == "warning":
            warnings.warn(f"{finding.code}: {finding.seen} Fix: {finding.fix}", stacklevel=2)
    errors = [f for f in report.findings if f.severity == "error"]
    if errors:
        listed = "; ".join(f"{f.code}: {f.seen} Fix: {f.fix}" for f in errors)
        raise DoctorError(f"{len(errors)} problem(s) found: {listed}")
    return f"healthy; {report.facts.decision}"
