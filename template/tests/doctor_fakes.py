"""Fake environments for the doctor's tests: site folders of installed metadata, tools on PATH."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

# Fake tools are shell scripts.
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="the fake tools are shell scripts")


def metadata_text(name: str, version: str | None, requires: tuple[str, ...] = ()) -> str:
    """A METADATA file; ``version=None`` leaves the Version header out."""
    lines = ["Metadata-Version: 2.1", f"Name: {name}"]
    if version is not None:
        lines.append(f"Version: {version}")
    lines += [f"Requires-Dist: {req}" for req in requires]
    return "\n".join(lines) + "\n"


def add_dist(site: Path, folder: str, metadata: bytes) -> Path:
    """One ``.dist-info`` folder holding exactly these METADATA bytes."""
    info = site / f"{folder}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_bytes(metadata)
    return info


def fake_site(site: Path, *dists: tuple[str, str] | tuple[str, str, tuple[str, ...]]) -> list[str]:
    """A folder of well-formed distributions (name, version[, requires]), as a search path."""
    for dist in dists:
        name, version, requires = (*dist, ())[:3]
        text = metadata_text(name, version, requires)
        add_dist(site, f"{name.replace('-', '_')}-{version}", text.encode())
    return [str(site)]


def fake_tool(folder: Path, name: str, script: str) -> Path:
    """An executable shell script called ``name`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    tool.chmod(0o755)
    return tool


def path_with(folder: Path) -> str:
    """PATH with ``folder`` first, so its tools shadow the real ones."""
    return os.pathsep.join([str(folder), os.environ.get("PATH", "")])
