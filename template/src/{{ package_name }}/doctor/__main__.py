# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""``python -m <package>.doctor``: the command line lives in ``_cli``."""

from ._cli import main

# Guarded, so that importing the module (the API docs do) runs nothing.
if __name__ == "__main__":
    raise SystemExit(main())
