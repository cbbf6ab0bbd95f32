"""The mutation tool (tools/mutation.py) on small synthetic modules: mutants, wording, proofs.

`nox -s mutation` runs the tool on real renders (minutes); these tests pin down each of its
decisions in a second or two, so a change to the tool cannot quietly change what a score means.
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from mutation import (
    Candidate,
    CoverageMap,
    Mutant,
    Proof,
    Runner,
    Workspace,
    by_function,
    gpu_candidates,
    gpu_libraries,
    gpu_names_of_modules,
    imported_gpu_names,
    is_python_program,
    main,
    message_parameters,
    mutants_of,
    private_callers,
    prove,
    run_one,
    score_line,
    select_tests,
    with_probes,
)

PATH = "src/pkg/mod.py"


def module(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def mutated(text: str) -> list[str]:
    """Every mutant of ``text``, applied."""
    return [m.apply(text) for m in mutants_of(text, PATH)]


def only(text: str, operator: str) -> list[Mutant]:
    return [m for m in mutants_of(text, PATH) if m.operator == operator]


# --- the mutator ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("a < b", "a <= b"),
        ("a >= b", "a > b"),
        ("a == b", "a != b"),
        ("a is not b", "a is b"),
        ("a not in b", "a in b"),
        ("a + b", "a - b"),
        ("a // b", "a / b"),
        ("a ** b", "a * b"),
        ("a and b", "a or b"),
        ("not a", "(a)"),
        ("(a + b) * c", "(a + b) / c"),
        ("a - -b", "a + -b"),
    ],
)
def test_operator_mutants_swap_the_operator_and_nothing_else(line: str, expected: str) -> None:
    text = f"def f(a, b, c):\n    return {line}\n"
    assert f"def f(a, b, c):\n    return {expected}\n" in mutated(text)


def test_each_side_of_a_chained_comparison_is_its_own_mutant() -> None:
    text = "def f(a, b, c):\n    return a < b <= c\n"
    assert {"a <= b <= c", "a < b < c"} <= {m.split("return ")[1].strip() for m in mutated(text)}


def test_constants_change_as_documented() -> None:
    text = "def f():\n    return g(0, 1, 41, 0.5, True, None)\n"
    calls = {m.split("return ")[1].strip() for m in mutated(text)}
    assert {
        "g(1, 1, 41, 0.5, True, None)",
        "g(0, 0, 41, 0.5, True, None)",
        "g(0, 1, 42, 0.5, True, None)",
        "g(0, 1, 41, 1.5, True, None)",
        "g(0, 1, 41, 0.5, False, None)",
        'g(0, 1, 41, 0.5, True, "")',
    } <= calls


def test_a_string_is_prefixed_so_an_fstring_or_bytes_keeps_its_kind() -> None:
    text = 'def f(x):\n    return (f"{x}!", b"raw")\n'
    assert {'("XX" f"{x}!", b"raw")', '(f"{x}!", b"XX" b"raw")'} <= {
        m.split("return ")[1].strip() for m in mutated(text)
    }


def test_a_statement_is_deleted_and_a_value_returned_as_none() -> None:
    text = module(
        """
        def f(x):
            if x:
                raise ValueError(x)
            g(x)
            return x + 1
        """
    )
    deleted = {m.description: m.apply(text) for m in only(text, "statement")}
    assert deleted["delete `raise ValueError(x)`"].split("\n")[2] == "        pass"
    assert deleted["delete `g(x)`"].split("\n")[3] == "    pass"
    (returned,) = only(text, "return")
    assert returned.apply(text).endswith("    return None\n")


def test_every_mutant_parses_and_keeps_the_line_numbers() -> None:
    text = module(
        """
        def f(values, limit):
            total = sum(
                v * 2
                for v in values
                if v > limit
            )
            g(
                total,
                "a message",
            )
            return (
                total
                - limit
            )
        """
    )
    results = mutated(text)
    assert results
    for result in results:
        ast.parse(result)
        assert result.count("\n") == text.count("\n")


def test_columns_after_non_ascii_text_are_found() -> None:
    text = 'def f(a, b):\n    return ("é" , a < b)\n'
    assert 'def f(a, b):\n    return ("é" , a <= b)\n' in mutated(text)


def test_docstrings_annotations_all_and_type_checking_blocks_are_not_mutated() -> None:
    text = module(
        '''
        """Module docstring."""
        from typing import TYPE_CHECKING, TypeVar, cast

        if TYPE_CHECKING:
            LIMIT = 1

        __all__ = ["f"]
        T = TypeVar("T", bound="int")


        def f(x: "int" = 0) -> "str":
            """Function docstring."""
            return cast("str", x)
        '''
    )
    changed = [m.description for m in mutants_of(text, PATH)]
    assert changed == ["`0` -> `1`", '`return cast("str", x)` -> `return None`']


def test_none_in_a_comparison_is_left_to_the_is_not_mutant() -> None:
    text = "def f(x):\n    return x is None\n"
    assert [m.description for m in only(text, "constant")] == []
    assert [m.description for m in only(text, "comparison")] == ["`is` -> `is not`"]


# --- wording -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        'raise ValueError(f"bad {x}: " "use another")',
        'raise ValueError("bad " + str(x))',
        'warnings.warn("bad", UserWarning, stacklevel=2)',
        'logging.getLogger(__name__).warning("bad %s", x)',
        'logger.debug("bad")',
        'assert x, "bad"',
    ],
)
def test_strings_in_messages_are_wording(statement: str) -> None:
    strings = only(f"def f(x):\n    {statement}\n", "string")
    assert strings
    assert all(m.wording for m in strings)


@pytest.mark.parametrize(
    "statement",
    [
        'return {"code": "bad"}',
        'os.environ.get("FORCE_CPU")',
        'warnings.warn("bad", "category-is-not-message")',
        'raise ValueError(x) from LookupError("cause")',
    ],
)
def test_strings_that_are_data_are_not_wording(statement: str) -> None:
    strings = [
        m for m in only(f"def f(x):\n    {statement}\n", "string") if "bad" not in m.description
    ]
    assert strings
    assert not any(m.wording for m in strings)


CHECKS = module(
    """
    def float_dtype(name, *arrays):
        if len(arrays) > 2:
            raise TypeError(f"{name}: too many arrays")
        return arrays[0].dtype


    def check_grid(name, u):
        return float_dtype(name, u)


    def label(name, x):
        return {name: x}
    """
)


def test_a_parameter_used_only_in_messages_is_found_through_calls() -> None:
    assert message_parameters([CHECKS]) == {"float_dtype": {0, "name"}, "check_grid": {0, "name"}}


def test_a_string_passed_where_a_function_only_builds_messages_is_wording() -> None:
    text = 'def axpy(x):\n    check_grid("axpy", x)\n    return label("axpy", x)\n'
    strings = only_with(text, "string", message_parameters([CHECKS]))
    assert [(m.column, m.wording) for m in strings] == [(16, True), (18, False)]


def test_a_string_assigned_to_a_local_read_only_in_messages_is_wording() -> None:
    text = module(
        """
        def check(out, on_device):
            kind = "device array" if on_device else "NumPy array"
            mode = "strict"
            if out is None:
                raise TypeError(f"out must be a {kind}")
            return mode
        """
    )
    wording = {m.description.split(" ->")[0]: m.wording for m in only(text, "string")}
    assert wording == {
        '"device array"': True,
        '"NumPy array"': True,
        '"strict"': False,
        'f"out must be a {kind}"': True,
    }


def test_the_default_of_a_parameter_used_only_in_messages_is_wording() -> None:
    text = module(
        """
        def check(x, takes="NumPy arrays", mode="fast"):
            if x is None:
                raise TypeError(f"takes {takes}")
            return mode
        """
    )
    strings = only_with(text, "string", message_parameters([text]))
    assert [(m.description.split(" ->")[0], m.wording) for m in strings] == [
        ('"NumPy arrays"', True),
        ('"fast"', False),
        ('f"takes {takes}"', True),
    ]


def only_with(text: str, operator: str, messages: dict[str, frozenset[int | str]]) -> list[Mutant]:
    return [m for m in mutants_of(text, PATH, messages) if m.operator == operator]


def test_a_mutant_is_located_where_its_change_is() -> None:
    text = "def f(a, b):\n    return (\n        a\n        + b\n    )\n"
    (plus,) = only(text, "arithmetic")
    assert plus.location == f"{PATH}:4:9"


# --- where a mutant runs, and which tests can see it -----------------------------------------


SCOPES = module(
    """
    LIMIT = 3


    def f(x, y=2):
        if x > LIMIT:
            return x
        return y
    """
)


def mutant_at(text: str, description: str) -> Mutant:
    return next(m for m in mutants_of(text, PATH) if m.description == description)


def test_mutants_know_whether_they_run_at_import_in_a_signature_or_in_a_body() -> None:
    assert mutant_at(SCOPES, "`3` -> `4`").scope == "import"
    assert mutant_at(SCOPES, "`2` -> `3`").scope == "signature"
    body = mutant_at(SCOPES, "`>` -> `>=`")
    assert (body.scope, body.function, body.body) == ("body", "f", (5, 7))


def coverage_of(lines: dict[int, set[str]], spawning: frozenset[str] = frozenset()) -> CoverageMap:
    durations = {"t_slow": 2.0, "t_fast": 0.1, "t_other": 0.5, "t_spawn": 1.0}
    return CoverageMap({PATH: {k: frozenset(v) for k, v in lines.items()}}, durations, spawning)


def test_a_body_mutant_runs_the_tests_of_its_line_fastest_first_plus_those_that_spawn() -> None:
    coverage = coverage_of({5: {"t_slow", "t_fast"}, 7: {"t_other"}}, frozenset({"t_spawn"}))
    selected = select_tests(mutant_at(SCOPES, "`>` -> `>=`"), coverage)
    assert selected == ["t_fast", "t_spawn", "t_slow"]


def test_a_line_no_test_runs_in_a_function_tests_do_run_selects_nothing() -> None:
    coverage = coverage_of({5: {"t_slow"}, 7: {"t_slow"}})
    assert select_tests(mutant_at(SCOPES, "`return x` -> `return None`"), coverage) == []


def test_a_function_coverage_never_saw_gets_the_whole_suite() -> None:
    # Numba-compiled loops are invisible to coverage: only the whole suite is safe.
    coverage = coverage_of({1: {""}})
    assert select_tests(mutant_at(SCOPES, "`>` -> `>=`"), coverage) is None


def test_import_time_code_gets_the_whole_suite() -> None:
    coverage = coverage_of({1: {"", "t_fast"}})
    assert select_tests(mutant_at(SCOPES, "`3` -> `4`"), coverage) is None


def test_a_default_value_runs_the_tests_that_call_the_function() -> None:
    coverage = coverage_of({6: {"t_other"}, 4: {""}})
    assert select_tests(mutant_at(SCOPES, "`2` -> `3`"), coverage) == ["t_other"]


CALLERS = module(
    """
    @jit
    def _loop(x):
        return x + 1


    def _helper(x):
        return x


    HOLDER = _helper


    def run(x):
        return _loop(x)
    """
)


def test_a_private_function_called_only_from_bodies_has_its_calling_lines() -> None:
    assert private_callers(CALLERS, elsewhere="") == {"_loop": (14,)}


def test_a_private_function_named_in_the_tests_has_no_callers_to_narrow_to() -> None:
    assert private_callers(CALLERS, elsewhere="def test_loop():\n    _loop(1)\n") == {}


def test_a_compiled_function_runs_the_tests_that_run_its_callers() -> None:
    # Coverage sees nothing inside `_loop` (Numba compiles it); `run` calls it on line 14.
    coverage = coverage_of({14: {"t_other"}})
    loop = mutant_at(CALLERS, "`+` -> `-`")
    callers = private_callers(CALLERS, elsewhere="")
    assert select_tests(loop, coverage, callers) == ["t_other"]


# --- code only a GPU runs ------------------------------------------------------------------------

GPU_MODULES = ("cupy", "numba.cuda", "pycuda")


def names(text: str) -> list[str]:
    return [c.name for c in gpu_candidates(text, PATH, GPU_MODULES)]


def test_a_function_that_imports_a_cuda_library_and_its_gpu_branch_are_candidates() -> None:
    text = module(
        """
        def to_device(x, gpu):
            if not gpu:
                return x
            else:
                import cupy

                return cupy.asarray(x)
        """
    )
    assert names(text) == ["to_device", "to_device, line 5"]


def test_what_follows_a_cuda_import_after_an_early_return_is_a_candidate() -> None:
    text = module(
        """
        def laplacian(u):
            if not on_gpu(u):
                return cpu(u)
            from pycuda import gpuarray

            check(u)
            return gpuarray.empty_like(u)
        """
    )
    (_, tail) = gpu_candidates(text, PATH, GPU_MODULES)
    assert (tail.name, tail.first, tail.last) == ("laplacian, line 4", 4, 7)


def test_the_gpu_implementation_under_gpu_dispatch_is_a_candidate() -> None:
    text = module(
        """
        @gpu_dispatch(cpu=_total_cpu)
        def total(x):
            return _kernel()(x)
        """
    )
    assert names(text) == ["total"]


def test_a_module_that_imports_numba_cuda_is_a_candidate_and_numba_alone_is_not() -> None:
    gpu = 'import importlib\n\ncuda = importlib.import_module("numba.cuda")\n'
    assert names(gpu) == ["<module>"]
    assert names("import numba\n\n\ndef f():\n    from numba import njit\n") == []


def test_a_kernel_and_its_launcher_are_candidates_through_the_target_a_function_imports() -> None:
    # The CUDA module is bound at import from a function that picks it; the kernel body reads
    # it, the compiled kernel is bound from it, the launcher reads that. Only host code is left.
    text = module(
        """
        import importlib


        def _target():
            return importlib.import_module("numba.cuda")


        cuda = _target()


        def _axpy(a, x, out):
            i = cuda.grid(1)
            out[i] = a * x[i]


        _axpy_kernel = cuda.jit(_axpy)


        def launch_axpy(a, x, out):
            _axpy_kernel[1, 32](a, x, out)


        def blocks_for(n):
            return (n + 31) // 32
        """
    )
    assert names(text) == ["_target", "_axpy", "launch_axpy"]


# Three modules only: a longer literal list would read as a retyped CUDA_MODULES.
def test_a_kernel_in_another_module_is_a_candidate_through_the_target_it_imports() -> None:
    # The target is bound in one module; a sibling imports it by name and compiles its kernel
    # with it: the kernel and its launcher are as GPU-only there as in the target's module.
    target = module(
        """
        import importlib


        def _target():
            return importlib.import_module("numba.cuda")


        cuda = _target()
        """
    )
    kernels = module(
        """
        from ._target import cuda


        def _scale(a, x):
            x[cuda.grid(1)] *= a


        _kernel = cuda.jit(_scale)


        def launch_scale(a, x):
            _kernel[1, 32](a, x)


        def host(a):
            return 2 * a
        """
    )
    texts = {"src/pkg/_target.py": target, "src/pkg/kernels.py": kernels}
    shared = gpu_names_of_modules(texts, GPU_MODULES)
    imported = imported_gpu_names(ast.parse(kernels), "src/pkg/kernels.py", shared)
    assert imported == {"cuda"}
    found = [c.name for c in gpu_candidates(kernels, "src/pkg/kernels.py", GPU_MODULES, imported)]
    assert found == ["_scale", "launch_scale"]
    assert gpu_candidates(kernels, "src/pkg/kernels.py", GPU_MODULES) == []


FACTS = 'CUDA_MODULES: Final = ("cupy", "numba.cuda", "pycuda.driver")\n'
PYPROJECT = '[project]\ndependencies = ["numpy>=2", "numba>=0.61"]\n'


def test_the_package_of_a_cuda_module_counts_when_the_project_needs_it_only_on_gpus() -> None:
    assert "pycuda" in gpu_libraries(FACTS, PYPROJECT)  # so pycuda.autoinit counts


def test_the_package_of_a_cuda_module_that_is_a_cpu_dependency_does_not_count() -> None:
    libraries = gpu_libraries(FACTS, PYPROJECT)
    assert ("numba" not in libraries, "numba.cuda" in libraries) == (True, True)


def test_a_probe_goes_before_the_first_statement_after_the_docstring() -> None:
    text = module(
        '''
        def f():
            """Doc."""
            import cupy
            return cupy
        '''
    )
    (candidate,) = gpu_candidates(text, PATH, GPU_MODULES)
    probed = with_probes(text, [(candidate, Path("/tmp/marker"))])
    assert probed.split("\n")[2].startswith("    __import__('pathlib').Path('/tmp/marker').touch()")
    ast.parse(probed)


# --- proofs and runs, with a real pytest in a real runner ------------------------------------

PROJECT = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "src/pkg/__init__.py": "",
    PATH: module(
        """
        def scale(x, gpu=False):
            if gpu:
                import cupy

                return cupy.asarray(x) * 2
            return x * 2


        def probe_driver():
            try:
                import cupy

                return cupy.cuda.runtime.getDeviceCount()
            except Exception:
                return 0


        def unused():
            return 1


        def tag():
            return 'pkg'


        def width():
            return 2
        """
    ),
    # Reads the module at import: a mutant that breaks tag() breaks the whole suite.
    "tests/conftest.py": "from pkg.mod import tag\n\nTAG = tag().upper()\n",
    "tests/test_mod.py": module(
        """
        from pkg.mod import probe_driver, scale, width

        WIDTH = width() + 1  # read at import: a mutant of width() breaks collecting this module


        def test_scale_doubles():
            assert scale(3) == 6


        def test_no_driver():
            assert probe_driver() == 0
        """
    ),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """A tiny project, one worker copy of it, and a runner on this Python."""
    base = tmp_path_factory.mktemp("mutation")
    for root in (base / "project", base / "worker0"):
        for name, text in PROJECT.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
    workspace = Workspace("synthetic", base / "project", base)
    runner = Runner(Path(sys.executable), base / "worker0", base, dict(os.environ))
    workspace.runners.append(runner)
    yield workspace
    workspace.runners[0].close()


# No line covered: every mutant runs the whole suite, every candidate gets a probe.
SUITE = {"tests/test_mod.py::test_scale_doubles": 0.1, "tests/test_mod.py::test_no_driver": 0.1}
NO_COVERAGE = CoverageMap({}, SUITE, frozenset())


def candidate(name: str) -> Candidate:
    text = PROJECT[PATH]
    return next(c for c in gpu_candidates(text, PATH, GPU_MODULES) if c.name == name)


def test_a_gpu_branch_the_cpu_suite_never_takes_is_proved_unreachable(workspace: Workspace) -> None:
    branch = candidate("scale, line 3")
    mutants = mutants_of(PROJECT[PATH], PATH)
    (proof,) = prove(workspace, [branch], mutants, NO_COVERAGE, workspace.out / "p1.json", PROJECT)
    assert proof.unreachable


def test_a_block_whose_probe_is_swallowed_is_still_reachable(workspace: Workspace) -> None:
    # `except Exception` catches the probe's AssertionError and the suite stays green; the
    # probe's marker file says it ran all the same.
    swallowed = candidate("probe_driver, line 11")
    mutants = mutants_of(PROJECT[PATH], PATH)
    (proof,) = prove(
        workspace, [swallowed], mutants, NO_COVERAGE, workspace.out / "p2.json", PROJECT
    )
    assert not proof.unreachable


def test_a_default_of_a_function_proved_unreachable_is_unreachable_too() -> None:
    text = "def f(x, y=1):\n    import cupy\n\n    return cupy.asarray(x)\n"
    (block,) = gpu_candidates(text, PATH, GPU_MODULES)
    default = mutant_at(text, "`1` -> `0`")
    assert Proof(block, unreachable=True, how="test").covers(default)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([sys.executable, "-c", "pass"], True),
        (["python3.12", "-m", "pkg"], True),
        (["/bin/sh", "-c", "true"], False),
    ],
)
def test_only_processes_that_can_run_python_count_as_spawning(
    argv: list[str], expected: bool
) -> None:
    assert is_python_program(argv) is expected


def test_a_script_with_a_python_shebang_counts_as_python(tmp_path: Path) -> None:
    script = tmp_path / "my-project-doctor"
    script.write_text("#!/usr/bin/env python3\nprint()\n", encoding="utf-8")
    assert is_python_program([str(script)])


def test_a_mutant_the_tests_notice_is_killed(workspace: Workspace) -> None:
    doubled = mutant_at(PROJECT[PATH], "`return x * 2` -> `return None`")
    assert (
        run_one(workspace, workspace.runners[0], doubled, NO_COVERAGE, PROJECT).status == "killed"
    )


def test_a_mutant_no_test_notices_survives(workspace: Workspace) -> None:
    unchecked = mutant_at(PROJECT[PATH], "`return 1` -> `return None`")
    outcome = run_one(workspace, workspace.runners[0], unchecked, NO_COVERAGE, PROJECT)
    assert outcome.status == "survived"


def test_a_mutant_that_breaks_the_conftest_at_import_is_killed(workspace: Workspace) -> None:
    breaking = mutant_at(PROJECT[PATH], "`return 'pkg'` -> `return None`")
    outcome = run_one(workspace, workspace.runners[0], breaking, NO_COVERAGE, PROJECT)
    assert (outcome.status, outcome.detail) == ("killed", "the suite: conftest fails to import")


def test_a_mutant_that_breaks_a_test_module_at_import_is_killed(workspace: Workspace) -> None:
    breaking = mutant_at(PROJECT[PATH], "`return 2` -> `return None`")
    # An id, as a coverage-based selection passes it: pytest then exits 4, not 2.
    tests = {"tests/test_mod.py::test_scale_doubles": 0.1}
    outcome = run_one(
        workspace, workspace.runners[0], breaking, CoverageMap({}, tests, frozenset()), PROJECT
    )
    assert (outcome.status, outcome.detail) == (
        "killed",
        "the suite: a test module fails to import",
    )


def test_parametrised_tests_are_run_by_function_when_their_ids_changed() -> None:
    tests = ["t.py::test_a[12]", "t.py::test_a[13]", "t.py::test_b", "t.py::test_c[x-1]"]
    assert by_function(tests) == ["t.py::test_a", "t.py::test_b", "t.py::test_c"]


def test_a_run_leaves_the_worker_copy_as_it_found_it(workspace: Workspace) -> None:
    doubled = mutant_at(PROJECT[PATH], "`return x * 2` -> `return None`")
    run_one(workspace, workspace.runners[0], doubled, NO_COVERAGE, PROJECT)
    assert (workspace.runners[0].tree / PATH).read_text(encoding="utf-8") == PROJECT[PATH]


# --- the summary -------------------------------------------------------------------------------


def test_the_score_counts_only_killed_and_survived() -> None:
    counts = {"killed": 3, "survived": 1, "unreachable": 5, "wording": 2, "error": 1}
    assert score_line(counts) == (
        "mutation score: 75.0% (killed 3, survived 1, unreachable 5, wording 2)"
    )


def test_the_run_command_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse formats help with %: a bare percent sign in a help text crashed --help.
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--help"])
    assert exit_info.value.code == 0
    assert "of mutants" in capsys.readouterr().out
