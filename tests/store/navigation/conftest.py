"""The navigation tests' corpus: a small on-disk root with a supersession chain and an index."""

from __future__ import annotations

from pathlib import Path

import pytest

from memls.store.model import Workspace
from memls.store.roots import MemoryRoot

ALPHA = """\
---
name: alpha
description: "The old way"
metadata:
  type: project
status: superseded
superseded_by: beta
---

# Alpha
"""

BETA = """\
---
name: beta
title: "Beta title"
description: "The middle way"
metadata:
  type: project
status: superseded
supersedes:
  - alpha
superseded_by: gamma
---
"""

GAMMA = """\
---
name: gamma
description: "The new way"
metadata:
  type: project
supersedes: [beta]
keywords:
  - deployment
---

# Gamma

Some text.

## Details

```
# not a heading
```

### Deeper
"""

DELTA = """\
---
name: delta
description: "Package installs use uv"
metadata:
  type: tooling
keywords: [pip]
---
"""

INDEX = """\
# Persistent Memory

## Project
- [gamma](c.md) \u2014 The new way
- [Ghost](ghost.md) \u2014 gone

## Tooling
- [delta](d.md) \u2014 Package installs use uv
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in {
        "a.md": ALPHA, "b.md": BETA, "c.md": GAMMA, "d.md": DELTA, "MEMORY.md": INDEX,
    }.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace.load([MemoryRoot("explicit", root)])


def at(path: Path, needle: str, offset: int = 0) -> tuple[int, int]:
    """(line, col) of the first ``needle`` in the file, plus ``offset`` columns."""
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        col = line.find(needle)
        if col != -1:
            return number, col + offset
    raise AssertionError(f"{needle!r} not in {path}")


def edited(ws: Workspace, path: Path, text: str) -> Path:
    ws.update(path, text)
    return path
