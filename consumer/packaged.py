"""Files the repository keeps at its top level and a wheel carries inside the package.

``schemas/`` (the Avro schemas) and ``config/overrides.yaml`` (the example overrides the demo runs
with) live beside ``consumer/`` in the repository, where their readers and reviewers look. The build
(setup.py) copies them into the package, as ``consumer/schemas/`` and ``consumer/config/``, so an
installed package finds them with ``importlib.resources``; a checkout or an editable install finds the
top-level originals.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

#: The repository's root, when this module runs from a checkout (an editable install).
SOURCE_ROOT = Path(__file__).resolve().parents[1]


def packaged_path(relative: str) -> Path:
    """*relative* (``schemas``, ``config/overrides.yaml``) inside the installed package, else in the checkout.

    When neither exists the package's path is returned, so the caller's "does not exist" error names
    where an installed package looks."""
    inside = Path(str(importlib.resources.files("consumer").joinpath(relative)))
    if inside.exists():
        return inside
    in_checkout = SOURCE_ROOT / relative
    return in_checkout if in_checkout.exists() else inside
