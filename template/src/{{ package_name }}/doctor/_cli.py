# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor's front ends: the command line, and a check of ``rapids doctor`` (rapids-cli).

The command line prints a table for people or JSON for programs, and says the verdict in its
exit code. rapids-cli, where RAPIDS users look first, discovers checks through the
``rapids_doctor_check`` entry-point group that the project's ``pyproject.toml`` registers
:func:`rapids_check` under. It calls each check with ``verbose=`` as a keyword, counts a check
that returns as passed (printing a returned string with ``--verbose``), a check that raises as
failed (printing the exception), and prints every warning the check emitted. The doctor's
findings map onto that: an error finding fails the check, a warning finding is a warning, and the
verdict line is the value. Nothing here imports rapids-cli: the package never depends on it, and
``rapids doctor`` without it installed simply never looks here.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, TextIO

from ..gpu._project import CUDA_MAJORS
from ._diagnoses import collect
from ._environment import DISTRIBUTION
from ._gather import toolkit_wheels

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._diagnoses import Report
    from ._environment import DriverInfo, Facts, Installed, Nvcc

__all__ = ["DoctorError", "as_dict", "main", "rapids_check", "render_text"]


def _listed(packages: Sequence[Installed]) -> str:
    return ", ".join(
        f"{p.name} {p.version}" + (f" [CUDA {p.cuda_major}]" if p.cuda_major else "")
        for p in packages
    )


def _driver_lines(driver: DriverInfo) -> list[tuple[str, str]]:
    if not driver.present:
        return [("Driver", f"none answered ({driver.error})")]
    lines = [
        (
            "Driver",
            f"{driver.version or 'version unknown'}, supports CUDA "
            f"{driver.cuda_version or 'unknown'} (via {driver.source})",
        )
    ]
    for gpu in driver.gpus:
        capability = f"compute {gpu.compute_capability}"
        lines.append(("GPU", f"{gpu.device}: {gpu.name}, {capability}, {gpu.memory_mib} MiB"))
    if not driver.gpus:
        lines.append(("GPU", "none"))
    return lines


def _nvcc_line(nvcc: Nvcc) -> str:
    if nvcc.path is None:
        return "not on PATH"
    if nvcc.error is not None:
        return f"{nvcc.path} (fails: {nvcc.error})"
    return f"{nvcc.version or 'unknown version'} ({nvcc.path})"


def _fact_rows(facts: Facts) -> list[tuple[str, str]]:
    env = ", ".join(f"{name}={value}" for name, value in facts.environment)
    where = ", in a container" if facts.in_container else ""
    rows = [
        ("Host", f"{facts.platform}, Python {facts.python}{where}"),
        ("Environment", env or "no overrides set"),
        *_driver_lines(facts.driver),
        ("nvcc", _nvcc_line(facts.nvcc)),
        ("CUDA wheels", _listed(toolkit_wheels(facts.packages)) or "none"),
        ("Packages", _listed(facts.packages) or "none"),
        ("Decision", str(facts.decision)),
    ]
    if facts.unreadable:
        rows.append(("Unreadable", "; ".join(u.where for u in facts.unreadable)))
    return rows


def render_text(report: Report) -> str:
    """The report for a person: one line per fact, then the findings and the verdict."""
    rows = _fact_rows(report.facts)
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" for label, value in rows]
    lines.append("")
    for finding in report.findings:
        lines.append(f"{finding.severity.upper():<7}  {finding.code}: {finding.seen}")
        lines.append(f"{'':<7}  why: {finding.why}")
        lines.append(f"{'':<7}  fix: {finding.fix}")
    verdict = "healthy" if report.healthy else "problems found"
    lines.append(f"{len(report.findings)} finding(s); {verdict}.")
    return "\n".join(lines)


def as_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data."""
    facts = report.facts
    return {
        "host": {
            "platform": facts.platform,
            "python": facts.python,
            "container": facts.in_container,
            "environment": dict(facts.environment),
            "project_cuda_majors": list(CUDA_MAJORS),
        },
        "driver": {
            **facts.driver._asdict(),
            "gpus": [g._asdict() for g in facts.driver.gpus],
            "library_error": facts.driver_library,
        },
        "toolkit": {
            "nvcc": facts.nvcc.path,
            "nvcc_version": facts.nvcc.version,
            "nvcc_error": facts.nvcc.error,
            "wheels": [f"{p.name} {p.version}" for p in toolkit_wheels(facts.packages)],
        },
        "packages": [
            {"name": p.name, "version": p.version, "cuda_major": p.cuda_major}
            for p in facts.packages
        ],
        "unreadable": [u._asdict() for u in facts.unreadable],
        # The compiled CUDA extension, where the project has one (else empty and no error).
        "extension": {
            "architectures": list(facts.compiled_architectures),
            "ptx": list(facts.compiled_ptx),
            "error": facts.extension_error,
        },
        "decision": {**facts.decision._asdict(), "text": str(facts.decision)},
        "findings": [dataclasses.asdict(f) for f in report.findings],
        "healthy": report.healthy,
    }


def _write(text: str, stream: TextIO) -> None:
    # A report is worth more than its accents: on an ASCII-only stdout (PYTHONIOENCODING=ascii,
    # some CI consoles) characters it cannot show are escaped instead of failing the print.
    encoding = stream.encoding or "utf-8"
    stream.write(text.encode(encoding, errors="backslashreplace").decode(encoding) + "\n")


# What a program killed by SIGPIPE reports (128 + 13): the report reached no reader.
EXIT_NO_READER = 141
# sysexits' EX_IOERR: the report could not be written (a full disk), a fault of the host.
EXIT_NOT_WRITTEN = 74


def _say(text: str) -> None:
    """A line on stderr, when there is one to take it (``2>&-`` leaves none)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        _write(text, sys.stderr)
        sys.stderr.flush()


def _no_reader() -> int:
    # stdout to the null device, or the flush at exit fails again ("Exception ignored ...").
    with contextlib.suppress(AttributeError, OSError, ValueError):  # None, or no descriptor
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_NO_READER


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point.

    Returns
    -------
    int
        0 healthy (warnings allowed), 1 at least one error finding, 2 bad usage or a doctor bug,
        74 when the report cannot be written (a full disk), 141 when standard output is closed
        or its reader went away (as for a broken pipe).
    """
    parser = argparse.ArgumentParser(
        prog=f"{DISTRIBUTION}-doctor",
        description="Diagnose driver, toolkit and CUDA package problems.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--probe",
        action="store_true",
        help="also import CuPy, to confirm the GPU module's choice",
    )
    args = parser.parse_args(argv)
    try:
        report = collect(probe=args.probe)
        # ensure_ascii: the JSON survives any console encoding unchanged.
        text = json.dumps(as_dict(report), indent=2) if args.json else render_text(report)
    except Exception as exc:  # every fault of the environment is a finding; this is a doctor bug
        _say(f"{DISTRIBUTION}-doctor failed (a bug, please report it): {exc!r}")
        return 2
    if sys.stdout is None:  # started with stdout closed (`>&-`): Python sets it to None
        return _no_reader()
    try:
        _write(text, sys.stdout)
        sys.stdout.flush()  # here, so that a reader gone away is seen here, not at exit
    except BrokenPipeError:  # `doctor | head -1`: the reader stopped, not a doctor bug
        return _no_reader()
    except OSError as exc:  # `doctor > /dev/full`: the host refused the report, no doctor bug
        _say(f"{DISTRIBUTION}-doctor could not write its report: {exc}")
        _no_reader()  # or the flush at exit fails again
        return EXIT_NOT_WRITTEN
    return 0 if report.healthy else 1


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
