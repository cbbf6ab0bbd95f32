# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor's verdict: its checks, the findings they return, and the report of both.

Each check is a plain function of the facts that returns a :class:`Finding` or None. To add a
finding, add a function here named after its code and list it in ``CHECKS``, with a test that
builds the facts that trigger it and a section in docs/troubleshooting.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeAlias

from ..gpu._detect import build_for_capability
from ..gpu._project import (
    CUDA_MAJOR,
    CUDA_MAJORS,
    FORCE_CPU_VARIABLES,
    GPU_EXTRAS,
    MIN_COMPUTE_CAPABILITY_BY_MAJOR,
    MIN_DRIVER_BY_MAJOR,
    REQUIRE_GPU_VARIABLES,
)
from ._environment import DISTRIBUTION, NUMBA_CUDA_IN_EXTRA, NUMBA_CUDA_PINS_BY_MAJOR
from ._gather import cupy_distributions, gather, toolkit_wheels, version_tuple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from ._environment import Facts, GPUInfo, Installed

__all__ = [
    "CHECKS",
    "SEVERITIES",
    "Check",
    "Finding",
    "Report",
    "Severity",
    "collect",
    "evaluate",
]

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


# A check: a plain function of the facts that returns its finding, or None when all is well.
Check: TypeAlias = "Callable[[Facts], Finding | None]"

# numba-cuda's extras, one per CUDA major: [cuNN] for each major the template knew.
_NUMBA_CUDA_EXTRAS = "/".join(f"[cu{major}]" for major in sorted(MIN_DRIVER_BY_MAJOR))
# numba-cuda 0.30 (the newest checked) calls numpy.row_stack, which this NumPy release removed.
_NUMPY_WITHOUT_ROW_STACK = (2, 5)
_NUMPY_CAP = ".".join(map(str, _NUMPY_WITHOUT_ROW_STACK))


def _listed(packages: Iterable[Installed]) -> str:
    return ", ".join(f"{p.name} {p.version}" for p in packages)


def _by_major(groups: dict[int, list[Installed]]) -> str:
    return "; ".join(f"CUDA {major}: {_listed(items)}" for major, items in groups.items())


# The majors this project serves, as the messages name them ("12 and 13").
_SERVED = " and ".join(map(str, CUDA_MAJORS))


def _install_hint(major: int = CUDA_MAJOR) -> str:
    """How to install this project's GPU stack for CUDA ``major``: its extra, or CuPy."""
    if major in GPU_EXTRAS:
        return f'pip install "{DISTRIBUTION}[{GPU_EXTRAS[major]}]"'
    return f"install a CUDA {major} build of a GPU library (pip install cupy-cuda{major}x)"


def _capability(gpu: GPUInfo) -> tuple[int, int] | None:
    """A GPU's compute capability as numbers ("8.6" is (8, 6)); None when unreadable."""
    major, _, minor = gpu.compute_capability.partition(".")
    return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else None


def _oldest_gpu(facts: Facts) -> tuple[int, int] | None:
    """The oldest compute capability among the GPUs the driver listed; None when none is known."""
    known = [c for c in map(_capability, facts.driver.gpus) if c is not None]
    return min(known) if known else None


def _builds_for(major: int, capability: tuple[int, int] | None) -> bool:
    """Whether CUDA ``major`` builds code for a GPU of ``capability`` (unknown: assume so)."""
    return capability is None or MIN_COMPUTE_CAPABILITY_BY_MAJOR.get(major, (0, 0)) <= capability


def _served_major_for(facts: Facts) -> int:
    """The major whose extra to advise: the newest served that the driver and every GPU run.

    A driver too old for every major served gets the oldest (the smallest upgrade); with no
    driver to read, the newest that builds for the GPUs: the advice is then about installing.
    A GPU older than a major's compute-capability floor (Volta under CUDA 13) rules that major
    out whatever the driver, since no driver makes its compilers build for that GPU.
    """
    if version := version_tuple(facts.driver.version):
        runs = [m for m in _majors_the_driver_runs(version) if m in CUDA_MAJORS]
    else:
        runs = list(CUDA_MAJORS)
    oldest = _oldest_gpu(facts)
    fits = [m for m in runs if _builds_for(m, oldest)]
    if fits:
        return fits[-1]
    return runs[-1] if runs else CUDA_MAJORS[0]


_REPORT = f"report it to {DISTRIBUTION}'s maintainers with this doctor's --json output"


def _or_names(names: Iterable[str]) -> str:
    return " or ".join(names)


def mixed_cuda_majors(facts: Facts) -> Finding | None:
    """CUDA-linked packages of more than one CUDA major in one environment."""
    groups = facts.by_cuda_major()
    if len(groups) < 2:
        return None
    install = _install_hint(_served_major_for(facts))
    return Finding(
        "mixed-cuda-majors",
        "error",
        f"CUDA-linked packages of more than one CUDA major are installed ({_by_major(groups)})",
        "each library loads the CUDA runtime it was built for; two majors in one process "
        "fail at import or crash at the first kernel",
        f"uninstall the packages of the other major, then {install} (numba-cuda "
        f"without its {_NUMBA_CUDA_EXTRAS} extra pulls the newest cuda-bindings, for CUDA "
        f"{max(MIN_DRIVER_BY_MAJOR)})",
    )


def several_cupy(facts: Facts) -> Finding | None:
    """Two CuPy distributions, which install the same ``cupy`` package."""
    cupys = cupy_distributions(facts.packages)
    if len(cupys) < 2:
        return None
    return Finding(
        "several-cupy",
        "error",
        f"more than one CuPy distribution is installed ({_listed(cupys)})",
        "they install the same `cupy` package and overwrite each other's files",
        f"pip uninstall {' '.join(c.name for c in cupys)}, then install one of them",
    )


def nvidia_wheels_mixed(facts: Facts) -> Finding | None:
    """NVIDIA's own CUDA wheels of two majors, unpacked into one ``nvidia/`` folder."""
    groups: dict[int, list[Installed]] = {}
    for major, items in facts.by_cuda_major().items():
        nvidia = [p for p in items if p.name.startswith("nvidia-")]
        if nvidia:
            groups[major] = nvidia
    if len(groups) < 2:
        return None
    return Finding(
        "nvidia-wheels-mixed",
        "error",
        f"NVIDIA CUDA wheels of more than one major are installed ({_by_major(groups)})",
        "both sets unpack into the same site-packages/nvidia/ folder: a file both ship is "
        "overwritten by the last install, and uninstalling either set removes files the other "
        "still loads",
        "uninstalling one set cannot repair this: create a fresh virtual environment and "
        f"install packages of one CUDA major only ({_install_hint(_served_major_for(facts))})",
    )


def _majors_the_driver_runs(driver_version: tuple[int, ...]) -> list[int]:
    return [
        major
        for major, minimum in sorted(MIN_DRIVER_BY_MAJOR.items())
        if version_tuple(minimum) <= driver_version
    ]


class _TooOld(NamedTuple):
    seen: str
    minimum: str  # the driver to upgrade to
    runs: int | None  # the newest major the driver does run, when known


def _driver_too_old(facts: Facts, major: int, needs: str) -> _TooOld | None:
    """Why the driver cannot run CUDA ``major`` (``needs`` it, in the message), or None."""
    if not facts.driver.present:
        return None
    minimum = MIN_DRIVER_BY_MAJOR.get(major)
    version = version_tuple(facts.driver.version)
    if minimum is not None and version:
        if version >= version_tuple(minimum):
            return None
        runs = _majors_the_driver_runs(version)
        seen = f"driver {facts.driver.version} is older than CUDA {major} needs (>= {minimum})"
        return _TooOld(seen, minimum, runs[-1] if runs else None)
    # A major the matrix does not know: the newest CUDA the driver supports (NVML tells it).
    supported = version_tuple(facts.driver.cuda_version)
    if not supported or supported[0] >= major:
        return None
    return _TooOld(
        f"the driver supports CUDA up to {facts.driver.cuda_version}; {needs} need CUDA {major}",
        minimum or f"the minimum of CUDA {major}",
        None,
    )


def driver_too_old(facts: Facts) -> Finding | None:
    """A driver older than the CUDA major of the installed packages needs."""
    groups = facts.by_cuda_major()  # none installed: driver-too-old-for-project's case
    # The newest runtime installed sets the bar.
    too_old = _driver_too_old(facts, max(groups), "installed packages") if groups else None
    if too_old is None:
        return None
    if too_old.runs in GPU_EXTRAS:  # this project serves a major the driver runs
        older = f", or {_install_hint(too_old.runs)} in a fresh environment"
    elif too_old.runs:
        older = f", or install packages built for CUDA {too_old.runs}"
    else:
        older = ""
    return Finding(
        "driver-too-old",
        "error",
        too_old.seen,
        "the CUDA runtime refuses to start: cudaErrorInsufficientDriver (35)",
        f"upgrade the NVIDIA driver to >= {too_old.minimum}{older}",
    )


def driver_too_old_for_project(facts: Facts) -> Finding | None:
    """No CUDA package installed yet, and a driver too old for every CUDA major served."""
    oldest = CUDA_MAJORS[0]
    too_old = _driver_too_old(facts, oldest, f"{DISTRIBUTION}'s GPU libraries")
    if too_old is None or facts.by_cuda_major():  # installed ones: driver-too-old's case
        return None
    # A build of the project for an older major would run here: its other way out.
    served = ", ".join(map(str, (too_old.runs, *CUDA_MAJORS)))
    rebuild = f"build {DISTRIBUTION} for CUDA {too_old.runs} too (copier update --data"
    older = f", or {rebuild} 'cuda_majors=[{served}]')" if too_old.runs else ""
    return Finding(
        "driver-too-old-for-project",
        "warning",
        too_old.seen,
        f"{DISTRIBUTION} serves CUDA {_SERVED}: its GPU stack, once installed, fails here with "
        "cudaErrorInsufficientDriver (35); until then it runs on NumPy",
        f"upgrade the NVIDIA driver to >= {too_old.minimum} before you "
        f"{_install_hint(oldest)}{older}",
    )


def extra_mismatch(facts: Facts) -> Finding | None:
    """CUDA packages of one major, but a major this project does not serve."""
    majors = list(facts.by_cuda_major())
    if len(majors) != 1 or majors[0] in CUDA_MAJORS:  # several majors: mixed-cuda-majors
        return None
    return Finding(
        "extra-mismatch",
        "error",
        f"the installed CUDA packages are for CUDA {majors[0]}, which {DISTRIBUTION} does "
        f"not serve (it serves CUDA {_SERVED})",
        f"{DISTRIBUTION} is built and tested for CUDA {_SERVED} wheels; other majors are "
        "untested and may not load",
        f"{_install_hint(_served_major_for(facts))} in a fresh environment",
    )


def numpy_too_new(facts: Facts) -> Finding | None:
    """numba-cuda beside a NumPy that removed a function it calls."""
    numba_cuda, numpy = facts.named("numba-cuda"), facts.named("numpy")
    if numba_cuda is None or numpy is None:
        return None
    if version_tuple(numpy.version) < _NUMPY_WITHOUT_ROW_STACK:
        return None
    return Finding(
        "numpy-too-new",
        "error",
        f"numba-cuda {numba_cuda.version} is installed with NumPy {numpy.version}",
        f"numba-cuda calls numpy.row_stack, which NumPy {_NUMPY_CAP} removed: compiling any CUDA "
        "kernel fails",
        f'pin numpy<{_NUMPY_CAP} (pip install "numpy<{_NUMPY_CAP}") or use numba-cuda-mlir',
    )


def gpu_decision_raises(facts: Facts) -> Finding | None:
    """The GPU decision raises: a refused override, REQUIRE_GPU without a GPU, or a bug."""
    raises = facts.decision.raises
    if raises is None:
        return None
    if raises == "ValueError":  # an override that is not a boolean, or both directions at once
        overrides = ", ".join((*FORCE_CPU_VARIABLES, *REQUIRE_GPU_VARIABLES))
        fix = (
            f"set {overrides} only to 1 or 0, or unset them; never set a "
            f"{FORCE_CPU_VARIABLES[0]} and a {REQUIRE_GPU_VARIABLES[0]} variable together"
        )
    elif raises == "GPUUnavailableError":  # REQUIRE_GPU where no GPU is usable
        fix = (
            "make a GPU usable (the other findings and the Decision line say what is missing), "
            f"or unset {_or_names(REQUIRE_GPU_VARIABLES)} to allow the NumPy fallback"
        )
    else:  # the GPU module documents only those two: anything else is its bug
        fix = _REPORT
    return Finding(
        "gpu-decision-raises",
        "error",
        f"the package raises {raises}: {facts.decision.reason}",
        "the package raises this at its first GPU decision (the first use of gpu.xp or "
        "gpu.backend()) instead of computing",
        fix,
    )


def gpu_library_fails(facts: Facts) -> Finding | None:
    """CuPy installed, and the package computes on NumPy because CuPy failed, not by choice."""
    decision, driver = facts.decision, facts.driver
    if decision.backend != "numpy" or not decision.library_decided:
        return None
    # A driver that lists no GPU is no-gpu's case: CuPy cannot be faulted for finding none.
    if not cupy_distributions(facts.packages) or (driver.present and not driver.gpus):
        return None
    return Finding(
        "gpu-library-fails",
        "error",
        f"CuPy is installed but the package computes on NumPy: {decision.reason}",
        "the package computes on NumPy where the GPU was meant: slowly, and with no error",
        "do what the reason and the other findings advise; a CuPy that does not import is "
        f"a broken or half-finished install: {_install_hint(_served_major_for(facts))} in a "
        "fresh environment",
    )


# NVIDIA's CUDA targets for Numba: either replaces the deprecated built-in one.
_NUMBA_CUDA_TARGETS = ("numba-cuda-mlir", "numba-cuda")


def _numba_cuda_hint(facts: Facts) -> str:
    """How to install Numba's CUDA target: the project's extra, or the matrix's pins.

    For the installed stack's major when this host runs it, else for the major the driver and
    the GPUs run (_served_major_for), never simply the newest.
    """
    installed = list(facts.by_cuda_major())
    if len(installed) == 1 and installed[0] in CUDA_MAJORS:
        # The stack already installed sets the major, unless this host cannot run it.
        fits = _driver_too_old(facts, installed[0], "") is None
        major = installed[0] if fits and _builds_for(installed[0], _oldest_gpu(facts)) else None
    else:
        major = None
    major = _served_major_for(facts) if major is None else major
    if NUMBA_CUDA_IN_EXTRA:
        return _install_hint(major)
    pins = NUMBA_CUDA_PINS_BY_MAJOR.get(major, NUMBA_CUDA_PINS_BY_MAJOR[CUDA_MAJOR])
    return "pip install " + " ".join(f'"{pin}"' for pin in pins)


def numba_builtin_cuda(facts: Facts) -> Finding | None:
    """Numba without NVIDIA's CUDA target beside CUDA packages: Numba's deprecated built-in one."""
    if facts.named("numba") is None or any(map(facts.named, _NUMBA_CUDA_TARGETS)):
        return None
    if not facts.by_cuda_major():
        return None
    return Finding(
        "numba-builtin-cuda",
        "warning",
        f"numba is installed without {_or_names(_NUMBA_CUDA_TARGETS)}",
        "numba's built-in CUDA target is deprecated and unmaintained; NVIDIA's numba-cuda-mlir "
        "(and numba-cuda before it) replaces it",
        _numba_cuda_hint(facts),
    )


# "CUDA 12 from compute 5.0, CUDA 13 from 7.5": each major's floor, from the CUDA matrix.
_FLOORS = ", ".join(
    f"CUDA {major} from compute {floor[0]}.{floor[1]}"
    for major, floor in sorted(MIN_COMPUTE_CAPABILITY_BY_MAJOR.items())
)


def gpu_too_old_for_cuda(facts: Facts) -> Finding | None:
    """A GPU older than the compute capability the installed CUDA major builds for."""
    groups = facts.by_cuda_major()
    if not groups:
        return None
    major = max(groups)
    floor = MIN_COMPUTE_CAPABILITY_BY_MAJOR.get(major)
    if floor is None:
        return None
    old = [g for g in facts.driver.gpus if (c := _capability(g)) is not None and c < floor]
    if not old:
        return None
    listed = ", ".join(f"GPU {g.device} ({g.name}, compute {g.compute_capability})" for g in old)
    oldest = min(c for c in map(_capability, old) if c is not None)
    fits = [m for m in GPU_EXTRAS if m < major and _builds_for(m, oldest)]
    fix = (
        f"{_install_hint(max(fits))} in a fresh environment"
        if fits
        else build_for_capability(oldest, major)
    )
    if len(old) < len(facts.driver.gpus):
        fix += ", or hide these GPUs with CUDA_VISIBLE_DEVICES"
    return Finding(
        "gpu-too-old-for-cuda",
        "error",
        f"the installed packages are for CUDA {major}, which builds for compute capability "
        f">= {floor[0]}.{floor[1]}; {listed} is older",
        "a CUDA major's compilers and libraries build no code for GPUs below its floor "
        f"({_FLOORS}): every kernel fails with cudaErrorNoKernelImageForDevice, and no driver "
        "upgrade changes that",
        fix,
    )


def no_driver(facts: Facts) -> Finding | None:
    """GPU packages, but no driver answered."""
    if facts.driver.present or not facts.by_cuda_major():
        return None
    fix = (
        "this is a container: start it with --gpus all (Docker) and install the NVIDIA "
        "Container Toolkit on the host"
        if facts.in_container
        else "install the NVIDIA driver, or expect the NumPy fallback"
    )
    return Finding(
        "no-driver",
        "warning",
        f"GPU libraries are installed but no NVIDIA driver answered ({facts.driver.error})",
        "every GPU library will fail to initialise; the package falls back to NumPy",
        fix,
    )


def driver_library_missing(facts: Facts) -> Finding | None:
    """The driver answers (NVML, nvidia-smi), but its CUDA library does not load."""
    if facts.driver_library is None or not facts.driver.present:
        return None
    fix = (
        "this is a container given the GPU for monitoring only: start it with --gpus all "
        "and NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all), so that the NVIDIA "
        "Container Toolkit mounts libcuda.so.1 too"
        if facts.in_container
        else "reinstall the NVIDIA driver's CUDA library (on Debian and Ubuntu "
        "libnvidia-compute-NNN of the driver's version), then run ldconfig"
    )
    return Finding(
        "driver-library-missing",
        "error",
        f"the NVIDIA driver answered (via {facts.driver.source}) but {facts.driver_library}",
        "every CUDA library starts through libcuda.so.1: without it the package computes on "
        "NumPy (or raises GPUUnavailableError under REQUIRE_GPU) although a GPU is listed",
        fix,
    )


def no_gpu(facts: Facts) -> Finding | None:
    """A driver that answers but lists no GPU."""
    driver = facts.driver
    if not driver.present or driver.gpus or not facts.by_cuda_major():
        return None
    shown = driver.version or f"supporting CUDA {driver.cuda_version}"
    return Finding(
        "no-gpu",
        "warning",
        f"the NVIDIA driver ({shown}, via {driver.source}) answered but lists no GPU",
        "CUDA libraries fail with cudaErrorNoDevice (100); the package falls back to NumPy",
        "run nvidia-smi; in a container pass --gpus all; a GPU that fell off the bus "
        "(Xid errors in the kernel log) needs a reset or a reboot",
    )


def fork_after_cuda(facts: Facts) -> Finding | None:
    """A CUDA library or Numba's threads in a process whose multiprocessing would fork."""
    if not (facts.cuda_loaded and facts.start_method == "fork"):
        return None
    return Finding(
        "fork-after-cuda",
        "warning",
        "a CUDA library or Numba's threads are in use and the start method is 'fork'",
        "a forked child cannot use an inherited CUDA context or OpenMP pool: errors or a hang",
        "create pools from the package's gpu.mp_context() (spawn), or call "
        "multiprocessing.set_start_method('spawn') at start-up",
    )


def nvcc_other_major(facts: Facts) -> Finding | None:
    """PyCUDA beside an nvcc of another CUDA major than the project's."""
    release = facts.nvcc.major_minor
    # The installed stack's major when there is one, else any major the project serves.
    expected = list(facts.by_cuda_major()) or list(CUDA_MAJORS)
    if release is None or release[0] in expected or facts.named("pycuda") is None:
        return None
    wanted = expected[-1]
    return Finding(
        "nvcc-other-major",
        "warning",
        f"nvcc on PATH is CUDA {release[0]}; the rest of this environment is for CUDA "
        f"{' and '.join(map(str, expected))}",
        "PyCUDA compiles its kernels with that nvcc, for another CUDA major than the rest of "
        "the environment",
        f"put a CUDA {wanted} toolkit's bin/ first on PATH (or set CUDA_PATH) before "
        "importing PyCUDA",
    )


def nvcc_wheels_differ(facts: Facts) -> Finding | None:
    """A local toolkit (nvcc) of another release than the CUDA toolkit wheels."""
    release = facts.nvcc.major_minor
    if release is None:
        return None
    differ = [p for p in toolkit_wheels(facts.packages) if version_tuple(p.version)[:2] != release]
    if not differ:
        return None
    nvcc = ".".join(map(str, release))
    wheels = ".".join(map(str, version_tuple(differ[0].version)[:2]))
    # Matching the wheels to nvcc is advice only within the wheels' major: wheels of
    # another major would trade this warning for mixed-cuda-majors.
    match = (
        f'pip install "cuda-toolkit=={nvcc}.*" to match nvcc, or '
        if release[0] == version_tuple(differ[0].version)[0]
        else ""
    )
    return Finding(
        "nvcc-wheels-differ",
        "warning",
        f"nvcc on PATH ({facts.nvcc.path}) is CUDA {nvcc}; the CUDA wheels are {_listed(differ)}",
        "code compiled by the local nvcc and by the wheels' NVRTC targets different CUDA "
        "releases, and headers or libraries may be picked from either; PTX from the newer one "
        "fails on a driver that only knows the older",
        f"use one release: {match}put a CUDA {wheels} toolkit first on PATH (or set "
        "CUDA_PATH), or take nvcc off PATH when nothing needs it",
    )


def unreadable_metadata(facts: Facts) -> Finding | None:
    """Installed distributions whose metadata cannot be read."""
    if not facts.unreadable:
        return None
    shown = "; ".join(f"{u.where}: {u.problem}" for u in facts.unreadable)
    return Finding(
        "unreadable-metadata",
        "warning",
        f"{len(facts.unreadable)} installed distribution(s) have unreadable metadata ({shown})",
        "pip and the doctor cannot tell what these are; a distribution with broken metadata is "
        "often a half-finished install or uninstall",
        "reinstall each (pip install --force-reinstall NAME), or delete the broken "
        ".dist-info folder named above",
    )


def cpu_only(facts: Facts) -> Finding | None:
    """No CUDA-linked package at all: a note, not a problem."""
    if facts.by_cuda_major():
        return None
    if not (facts.driver.version or facts.driver.cuda_version):  # no major to advise
        unknown = "the driver's version is unknown; " if facts.driver.present else ""
        fits = [m for m in CUDA_MAJORS if _builds_for(m, _oldest_gpu(facts))] or CUDA_MAJORS
        each = [f"{_install_hint(m)} (driver >= {MIN_DRIVER_BY_MAJOR[m]})" for m in fits]
        fix = f"to use a GPU: {unknown}{_or_names(reversed(each))}"
    else:
        major = _served_major_for(facts)
        too_old = _driver_too_old(facts, major, f"{DISTRIBUTION}'s GPU libraries")
        upgrade = f"upgrade the NVIDIA driver to >= {too_old.minimum}, then " if too_old else ""
        fix = f"to use a GPU: {upgrade}{_install_hint(major)}"
    return Finding(
        "cpu-only",
        "info",
        "no CUDA-linked package is installed",
        "the package runs on NumPy",
        fix,
    )


# Every check, in the order the report lists findings of one severity. A check is named after
# its finding's code (snake case), so a check that crashes can be named in the report; the
# compiled extension's checks join the list when the doctor package imports that module.
CHECKS: list[Check] = [
    mixed_cuda_majors,
    several_cupy,
    nvidia_wheels_mixed,
    driver_too_old,
    driver_too_old_for_project,
    extra_mismatch,
    numpy_too_new,
    gpu_decision_raises,
    gpu_library_fails,
    numba_builtin_cuda,
    gpu_too_old_for_cuda,
    no_driver,
    driver_library_missing,
    no_gpu,
    fork_after_cuda,
    nvcc_other_major,
    nvcc_wheels_differ,
    unreadable_metadata,
    cpu_only,
]


def _run(check: Check, facts: Facts) -> Finding | None:
    try:
        return check(facts)
    except Exception as exc:  # one broken check must not cost the rest of the report
        return Finding(
            "check-failed",
            "warning",
            f"the {check.__name__.replace('_', '-')} check failed: {exc!r}",
            "the doctor has a bug: this check could not look at the facts",
            _REPORT,
        )


def evaluate(facts: Facts, checks: Iterable[Check] = CHECKS) -> list[Finding]:
    """Every finding for these facts, worst first (``checks``: default, every one in CHECKS)."""
    found = [_run(check, facts) for check in checks]
    return sorted((f for f in found if f is not None), key=lambda f: SEVERITIES.index(f.severity))


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
