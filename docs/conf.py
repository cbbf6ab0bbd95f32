"""Sphinx configuration of cuda-template's documentation: `nox -s docs` builds it strictly.

The pages are Markdown (MyST). Two of them, cuda-matrix.md and troubleshooting.md, are written
by tools/generate_docs.py from the template itself; edit their sources, not the pages.
"""

from __future__ import annotations

project = "cuda-template"
author = "cuda-template contributors"
copyright = author  # the footer line

extensions = ["myst_parser"]
exclude_patterns = ["_build"]
# Links to a section of another page (`contributing.md#bump-the-cuda-matrix`) need anchors.
myst_heading_anchors = 3
nitpicky = True

html_theme = "pydata_sphinx_theme"
html_title = project
html_theme_options = {
    # The pages are few: list them all in the header instead of a "More" menu.
    "header_links_before_dropdown": 8,
}
