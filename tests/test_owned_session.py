"""`nox -s owned` (tools/owned_tests.py): the owned tests of one render, the loop for owned code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import owned_tests
import pytest
from conftest import RENDER_MATRIX, snapshot_working_tree

DETECT = Path("template/src/{{ package_name }}/gpu/_detect.py.jinja")


def test_a_render_outside_the_answer_matrix_is_refused_with_the_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert owned_tests.main(["--render=nightly", "-k", "detection"]) == 2
    said = capsys.readouterr().err
    assert "no render 'nightly' in the answer matrix" in said
    assert all(name in said for name in RENDER_MATRIX)


def test_the_render_flag_is_taken_and_the_rest_goes_to_pytest() -> None:
    assert owned_tests.split(["-k", "detection", "--render=cuda12", "-x"]) == (
        "cuda12",
        ["-k", "detection", "-x"],
    )
    assert owned_tests.split([]) == (owned_tests.DEFAULT_RENDER, [])


def test_only_the_owned_tests_a_render_holds_are_run(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    for name in ("test_gpu_detection.py", "test_gpu.py", "test_kernels_pycuda_fakes.py"):
        (tmp_path / "tests" / name).write_text("", "utf-8")
    # test_gpu.py is the project's own; pycuda's fakes are owned, and in this render.
    assert owned_tests.owned_test_files(tmp_path) == [
        "tests/test_gpu_detection.py",
        "tests/test_kernels_pycuda_fakes.py",
    ]


@pytest.mark.slow
def test_a_one_word_change_to_an_owned_message_fails_the_owned_session(tmp_path: Path) -> None:
    checkout = snapshot_working_tree(tmp_path / "checkout")
    detect = checkout / DETECT
    said = detect.read_text("utf-8")
    assert "install the driver (" in said
    detect.write_text(said.replace("install the driver (", "install a driver ("), "utf-8")
    command = [sys.executable, "tools/owned_tests.py", "--render=cuda12", "-k", "driver_library"]
    proc = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "test_missing_driver_library_reason_says_which_driver_to_install" in out
    assert "1 failed" in out
