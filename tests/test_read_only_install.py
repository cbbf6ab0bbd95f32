"""A wheel installed read-only imports and computes: no cache folder can be written anywhere.

As in ``docker run --read-only`` or a pod with ``readOnlyRootFilesystem``: the package, ``HOME``
and ``NUMBA_CACHE_DIR`` all refuse writes. Numba looks for a cache folder when a ``cache=True``
function is decorated, so a kernel module that asked for the cache unconditionally would fail
to import. Marked ``slow``: it builds each render's wheel.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from conftest import BUILT_IN_TESTS, RENDER_MATRIX, Built, built_params, run

pytestmark = pytest.mark.slow

# Proves the set-up first (each folder refuses a write), then imports every kernel module and
# runs axpy on the CPU, its loop compiled without a cache.
_IMPORT_EVERY_KERNEL = """
import importlib, os, pkgutil, sys
import numpy as np
package = sys.argv[1]
kernels = importlib.import_module(package + ".kernels")
for folder in (kernels.__path__[0], os.environ["HOME"], os.environ["NUMBA_CACHE_DIR"]):
    try:
        open(os.path.join(folder, "probe"), "w").close()
    except PermissionError:
        continue
    raise SystemExit(f"{folder} can be written: this test would prove nothing")
for module in pkgutil.iter_modules(kernels.__path__):
    importlib.import_module(f"{package}.kernels.{module.name}")
axpy = importlib.import_module(package + ".kernels.numba_kernels").axpy
print("axpy:", axpy(2.0, np.ones(3), np.arange(3.0)).tolist())
"""


def read_only(root: Path) -> None:
    """Take write permission from ``root`` and everything under it."""
    for folder, _, files in os.walk(root):
        for name in files:
            Path(folder, name).chmod(0o444)
        Path(folder).chmod(0o555)


def unprivileged() -> list[str]:
    """A prefix that makes file modes bind: root ignores them unless it drops its DAC override
    (it keeps its uid, so it still reaches the interpreter under a private home)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


# Every render of the matrix that has kernels: the one without GPU libraries has none.
WITH_KERNELS = [
    param
    for param in built_params(BUILT_IN_TESTS)
    if RENDER_MATRIX[param.values[0]].get("gpu_libraries") != []
]


@pytest.mark.parametrize("built", WITH_KERNELS, indirect=True)
def test_the_wheel_imports_every_kernel_module_with_no_writable_cache_folder(
    built: Built, tmp_path: Path
) -> None:
    site, home, numba_cache = tmp_path / "site-packages", tmp_path / "home", tmp_path / "numba"
    with zipfile.ZipFile(built.wheel) as wheel:
        wheel.extractall(site)
    home.mkdir()
    numba_cache.mkdir()
    for folder in (site, home, numba_cache):
        read_only(folder)
    environment = {
        "PYTHONPATH": str(site),  # before the venv's own copy of the package
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "NUMBA_CACHE_DIR": str(numba_cache),
        "NUMBA_ENABLE_CUDASIM": "0",
    }
    package = built.answer("package_name")
    command = [*unprivileged(), str(built.venv_python), "-c", _IMPORT_EVERY_KERNEL, package]
    out = run(command, cwd=home, env=environment)
    assert "axpy: [2.0, 3.0, 4.0]" in out
    # Said once, whatever the number of kernels built without the cache.
    assert out.count("compile in every process") == 1, out
