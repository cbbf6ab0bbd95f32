# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor's front ends: the command line, and the check ``rapids doctor`` (rapids-cli) runs.

rapids-cli calls each check of the ``rapids_doctor_check`` entry-point group (the project's
``pyproject.toml`` registers :func:`rapids_check`) with ``verbose=``: a check that returns
passed, one that raises failed, and every warning it emits is printed. Nothing here imports
rapids-cli: without it installed, ``rapids doctor`` simply never looks here.
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
from . import DISTRIBUTION, collect

if TYPE_CHECKING:
    from collections.abc import Sequence

    from . import Report

__all__ = ["DoctorError", "as_dict", "main", "rapids_check", "render_text"]

# What a program killed by SIGPIPE reports (128 + 13): the report reached no reader.
EXIT_NO_READER = 141
# sysexits' EX_IOERR: the report could not be written (a full disk), a fault of the host.
EXIT_NOT_WRITTEN = 74


def render_text(report: Report) -> str:
    """The report for a person: one line per fact, then the findings and the verdict."""
    facts, driver = report.facts, report.facts.driver
    if driver.present:
        rows = [
            (
                "Driver",
                f"{driver.version or 'version unknown'}, supports CUDA "
                f"{driver.cuda_version or 'unknown'} (via {driver.source})",
            )
        ]
        rows += [
            ("GPU", f"{g.device}: {g.name}, compute {g.compute_capability}, {g.memory_mib} MiB")
            for g in driver.gpus
        ] or [("GPU", "none")]
    else:
        rows = [("Driver", f"none answered ({driver.error})")]
    packages = ", ".join(
        f"{p.name} {p.version}" + (f" [CUDA {p.cuda_major}]" if p.cuda_major else "")
        for p in facts.packages
    )
    rows = [
        (
            "Host",
            f"{facts.platform}, Python {facts.python}"
            + (", in a container" if facts.in_container else ""),
        ),
        ("Environment", ", ".join(f"{n}={v}" for n, v in facts.environment) or "no overrides set"),
        *rows,
        ("Packages", packages or "none"),
        ("Decision", str(facts.decision)),
        *[("Unreadable", where) for where in facts.unreadable],
    ]
    lines = [f"{label:<11}  {value}" for label, value in rows] + [""]
    for f in report.findings:
        lines += [
            f"{f.severity.upper():<7}  {f.code}: {f.seen}",
            f"{'':<7}  why: {f.why}",
            f"{'':<7}  fix: {f.fix}",
        ]
    verdict = "healthy" if report.healthy else "problems found"
    return "\n".join([*lines, f"{len(report.findings)} finding(s); {verdict}."])


def as_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data: every fact, the findings and the verdict."""
    facts = dataclasses.asdict(report.facts)  # the NamedTuples in it stay tuples: named below
    facts.update(
        driver={
            **report.facts.driver._asdict(),
            "gpus": [g._asdict() for g in report.facts.driver.gpus],
        },
        packages=[p._asdict() for p in report.facts.packages],
        environment=dict(report.facts.environment),
        decision={**report.facts.decision._asdict(), "text": str(report.facts.decision)},
    )
    findings = [dataclasses.asdict(f) for f in report.findings]
    return {
        **facts,
        "project_cuda_majors": list(CUDA_MAJORS),
        "findings": findings,
        "healthy": report.healthy,
    }


def _write(text: str, stream: TextIO) -> None:
    # A report is worth more than its accents: on an ASCII-only stdout (PYTHONIOENCODING=ascii,
    # some CI consoles) characters it cannot show are escaped instead of failing the print.
    encoding = stream.encoding or "utf-8"
    stream.write(text.encode(encoding, errors="backslashreplace").decode(encoding) + "\n")


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
        or its reader went away (as for a broken pipe). A broken environment is a finding.
    """
    parser = argparse.ArgumentParser(
        prog=f"{DISTRIBUTION}-doctor", description="Diagnose driver, GPU and CUDA package problems."
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--probe", action="store_true", help="also ask the GPU module, importing CuPy, to confirm"
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

    ``verbose`` is rapids-cli's (it decides whether to print the value); ``kwargs`` are what a
    later rapids-cli may pass. A warning finding is a warning; an error fails the check with
    :class:`DoctorError`, which lists each one's code, what was seen, and the fix.
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
