"""tools/mutation.py, the setup around mutmut: its configuration, and the accepted survivors.

`nox -s mutation` runs mutmut on a render (minutes); these tests pin down what the tool decides
around it in a fraction of a second.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from mutation import ACCEPTED, PACKAGES, compare, mutmut_config, renders, score_line, statuses

SOURCE = Path(__file__).parents[1] / "template" / "src" / "{{ package_name }}"
RESULTS = """\
    my_gpu_project.gpu._detect.x_visible_devices__mutmut_12: survived
    my_gpu_project.gpu._arrays.x_is_gpu_array__mutmut_1: killed
    my_gpu_project.gpu._detect.x__detection_lock__mutmut_9: suspicious
    my_gpu_project.doctor._cli.x_main__mutmut_1: not checked
"""


def test_mutmut_mutates_only_the_chosen_packages_of_the_render_and_lines_the_tests_run() -> None:
    config = tomllib.loads(mutmut_config("pkg", ["gpu", "doctor"]))["tool"]["mutmut"]
    assert config["source_paths"] == ["src/pkg"]
    assert config["only_mutate"] == ["src/pkg/gpu/*", "src/pkg/doctor/*"]
    assert config["mutate_only_covered_lines"] is True
    assert "--hypothesis-seed=0" in config["pytest_add_cli_args"]


def test_results_are_named_without_the_package() -> None:
    assert statuses(RESULTS, "my_gpu_project") == {
        "gpu._detect.x_visible_devices__mutmut_12": "survived",
        "gpu._arrays.x_is_gpu_array__mutmut_1": "killed",
        "gpu._detect.x__detection_lock__mutmut_9": "suspicious",
        "doctor._cli.x_main__mutmut_1": "not checked",
    }


def test_a_survivor_not_accepted_is_new_and_an_accepted_one_killed_is_stale() -> None:
    found = statuses(RESULTS, "my_gpu_project")
    accepted = {
        "gpu._detect.x_visible_devices__mutmut_12": "equivalent",
        "gpu._arrays.x_is_gpu_array__mutmut_1": "equivalent",
        "doctor._cli.x_main__mutmut_1": "help text",  # not checked in a --quick run: kept
    }
    assert compare(found, accepted) == (
        ["gpu._detect.x__detection_lock__mutmut_9"],
        ["gpu._arrays.x_is_gpu_array__mutmut_1"],
    )


def test_the_score_counts_suspicious_mutants_as_survivors_and_leaves_out_unchecked_ones() -> None:
    line = score_line(statuses(RESULTS, "my_gpu_project"), "defaults")
    assert line == "mutation score: 33.3% (killed 1, survived 2) for defaults"


def test_every_accepted_survivor_is_of_a_measured_render_and_package_and_says_why() -> None:
    accepted = tomllib.loads(ACCEPTED.read_text("utf-8"))
    assert set(accepted) <= set(renders())
    for survivors in accepted.values():
        for name, reason in survivors.items():
            assert name.split(".")[0] in PACKAGES, name
            assert len(reason.split()) >= 3, f"{name}: say why it is accepted"
            # A mutant of a module that is gone can never be killed again: its entry would stay.
            module = SOURCE.joinpath(*name.split(".")[:2])
            assert module.with_suffix(".py").exists() or module.with_suffix(".py.jinja").exists()
