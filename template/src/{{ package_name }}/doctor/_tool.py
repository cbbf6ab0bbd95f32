# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Run a command-line tool (nvidia-smi, nvcc) and read what it prints, whatever the bytes."""

from __future__ import annotations

import subprocess

__all__ = ["run_tool"]


def run_tool(*argv: str, timeout: float = 30) -> str:
    """The standard output of ``argv``, decoded as UTF-8 with replacement characters.

    A tool may print bytes that are not UTF-8 (a GPU name in a legacy code page, a localised
    error): they become U+FFFD rather than a ``UnicodeDecodeError`` that would cost the report.

    Raises
    ------
    OSError
        When the tool cannot be started.
    subprocess.SubprocessError
        When it fails (``CalledProcessError``) or runs past ``timeout``.
    """
    # Decoded here, so that a failure's CalledProcessError carries the tool's words as text.
    done = subprocess.run(
        argv, capture_output=True, timeout=timeout, check=True, encoding="utf-8", errors="replace"
    )
    return done.stdout
