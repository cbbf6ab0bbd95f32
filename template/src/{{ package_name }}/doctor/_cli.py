# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor's front ends: the command line, and the check ``rapids doctor`` (rapids-cli) runs.

rapids-cli calls each check of the ``rapids_doctor_check`` entry-point group (``pyproject.toml``
registers :func:`rapids_check`) with ``verbose=``: a check that returns passed, one that raises
failed, and every warning it emits is printed. Nothing here imports rapids-cli.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

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
    """The report for a person: a line per fact, the findings (one lists unreadable metadata)."""
    facts, driver = report.facts, report.facts.driver
    container = ", in a container" if facts.in_container else ""
    overrides = ", ".join(f"{name}={value}" for name, value in facts.environment.items())
    rows = [
        ("Host", f"{facts.platform}, Python {facts.python}{container}"),
        ("Environment", overrides or "no overrides set"),
        ("Driver", f"none answered ({driver.error})"),
    ]
    if driver.present:
        version, cuda = driver.version or "version unknown", driver.cuda_version or "unknown"
        rows[-1] = ("Driver", f"{version}, supports CUDA {cuda} (via {driver.source})")
        rows += [
            ("GPU", f"{g.device}: {g.name}, compute {g.compute_capability}, {g.memory_mib} MiB")
            for g in driver.gpus
        ] or [("GPU", "none")]
    packages = (
        f"{p.name} {p.version}" + (f" [CUDA {p.cuda_major}]" if p.cuda_major else "")
        for p in facts.packages
    )
    rows += [("Packages", ", ".join(packages) or "none"), ("Decision", str(facts.decision))]
    lines = [*(f"{label:<11}  {value}" for label, value in rows), ""]
    for f in report.findings:
        lines += [
            f"{f.severity.upper():<7}  {f.code}: {f.seen}",
            f"{'':9}why: {f.why}",
            f"{'':9}fix: {f.fix}",
        ]
    verdict = "healthy" if report.healthy else "problems found"
    return "\n".join([*lines, f"{len(report.findings)} finding(s); {verdict}."])


def as_dict(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data: every fact, the findings and the verdict."""
    facts = dataclasses.asdict(report.facts)
    facts["decision"]["text"] = str(report.facts.decision)
    findings = [dataclasses.asdict(f) for f in report.findings]
    return {
        **facts,
        "project_cuda_majors": list(CUDA_MAJORS),
        "findings": findings,
        "healthy": report.healthy,
    }


def _say(text: str) -> None:
    """A line on stderr, when there is one to take it (``2>&-`` leaves none)."""
    with contextlib.suppress(OSError, ValueError):
        if sys.stderr is not None:  # else print() would write to stdout
            print(text, file=sys.stderr, flush=True)


def _no_reader(code: int) -> int:
    # stdout to the null device, or the flush at exit fails again ("Exception ignored ...").
    with contextlib.suppress(AttributeError, OSError, ValueError):  # None, or no descriptor
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code


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
        return EXIT_NO_READER
    try:
        # A report is worth more than its accents: on an ASCII-only console (PYTHONIOENCODING=ascii,
        # the C locale) what it cannot show is escaped instead of failing the print. It changes
        # the process's stdout for good: main() is a program's entry point, not a library call.
        if isinstance(sys.stdout, io.TextIOWrapper):
            sys.stdout.reconfigure(errors="backslashreplace")
        print(text, flush=True)  # flushed here, so that a reader gone away is seen here
    except BrokenPipeError:  # `doctor | head -1`: the reader stopped, not a doctor bug
        return _no_reader(EXIT_NO_READER)
    except OSError as exc:  # `doctor > /dev/full`: the host refused the report, no doctor bug
        _say(f"{DISTRIBUTION}-doctor could not write its report: {exc}")
        return _no_reader(EXIT_NOT_WRITTEN)
    return 0 if report.healthy else 1


class DoctorError(RuntimeError):
    """The doctor found at least one error; the message lists each with its fix."""


def rapids_check(verbose: bool = False, **kwargs: object) -> str:
    """The CUDA environment as this package sees it: driver, CUDA wheels, GPU decision.

    ``verbose`` is rapids-cli's (it decides whether to print the value); ``kwargs`` are what a
    later rapids-cli may pass. A warning finding is a warning; an error fails the check with
    :class:`DoctorError`, which lists each one's code, what was seen, and the fix.
    """
    report = collect()  # no --probe: importing CuPy inside another tool's process starts CUDA
    for finding in report.findings:
        if finding.severity == "warning":
            warnings.warn(f"{finding.code}: {finding.seen} Fix: {finding.fix}", stacklevel=2)
    if errors := [
        f"{f.code}: {f.seen} Fix: {f.fix}" for f in report.findings if f.severity == "error"
    ]:
        raise DoctorError(f"{len(errors)} problem(s) found: {'; '.join(errors)}")
    return f"healthy; {report.facts.decision}"
