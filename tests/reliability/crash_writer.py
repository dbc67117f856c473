"""``python crash_writer.py ROOT SEED``: write forever through MemoryStore until killed.

Saves ``crash-<k>`` with description ``v<counter>`` and supersedes pairs, the
two multi-file writes; the test kills this process with SIGKILL at a random
moment and then inspects the root.
"""

import random
import sys
from pathlib import Path

from memls.store import MemoryRoot, MemoryStore

root, seed = Path(sys.argv[1]), int(sys.argv[2])
store = MemoryStore([MemoryRoot("explicit", root)])
rng = random.Random(seed)
counter = seed * 1_000_000
while True:
    counter += 1
    k = rng.randrange(6)
    if rng.random() < 0.8:
        store.save(f"crash-{k}", f"v{counter}", f"body {counter}\n" * rng.randrange(1, 200))
    else:
        other = rng.randrange(6)
        try:
            store.supersede(f"crash-{k}", f"crash-{other}")
        except (KeyError, ValueError):
            pass
