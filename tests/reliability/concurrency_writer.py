"""``python concurrency_writer.py KIND ID ROOT LOG ITERATIONS``: one writer of the concurrency test.

KIND ``memls`` runs `memls save/supersede/rename/index --write`; KIND
``gptme`` runs `gptme-util memory save/supersede/index --write`. Each
successful save is logged to LOG as a JSON line ``{"name", "description"}``
(a rename logs ``{"renamed": old, "name": new}``), in this writer's order, so
the test knows the last content each writer reported for each name. Names
are ``<kind><id>-...`` (this writer's own) plus ``shared-note`` (every writer).
"""

import json
import random
import subprocess
import sys
from pathlib import Path

kind, ident, root, log, iterations = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]), int(sys.argv[5])
bin_dir = Path(sys.executable).parent
command = [str(bin_dir / "memls")] if kind == "memls" else [str(bin_dir / "gptme-util"), "memory"]
me = f"{kind}{ident}"
rng = random.Random(me)


def run(*args: str) -> bool:
    result = subprocess.run([*command, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        with log.with_suffix(".errors").open("a") as errors:
            errors.write(f"{args}: {result.stderr.strip()}\n")
    return result.returncode == 0


def record(**fields) -> None:
    with log.open("a") as out:
        out.write(json.dumps(fields) + "\n")


living = []
renames = 0
for i in range(iterations):
    name = f"{me}-{rng.randrange(4)}"
    description = f"{me} wrote {name} at step {i}"
    if run("save", name, description, "--type", "project"):
        record(name=name, description=description)
        if name not in living:
            living.append(name)
    if i % 5 == 4:
        shared = f"shared-note by {me} at step {i}"
        if run("save", "shared-note", shared, "--type", "project"):
            record(name="shared-note", description=shared)
    if i % 4 == 3 and len(living) >= 2:
        old, new = living[0], living[-1]
        if old != new and run("supersede", old, new):
            living.remove(old)
            record(superseded=old, by=new)
    if kind == "memls" and i % 6 == 5 and living:
        old = living.pop(0)
        renames += 1
        new = f"{me}-renamed-{renames}"
        if run("rename", old, new):
            record(renamed=old, name=new)
            living.append(new)
        else:
            living.insert(0, old)
    if i % 3 == 2:
        run("index", "--write")
