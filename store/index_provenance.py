"""Which ``MEMORY.md`` memls wrote, or saw, as a rendering: the digest of its bytes, kept with the root's caches.

A legacy index is rewritten whole by a save only while it is memls's
rendering (generated); any other is curated, and a save edits its lines
alone. Whether an index is a rendering was judged from the entries: the
rendering of the root before or after the change, or of the root as the
parse cache last held it (an index rendered before an entry was edited
since). The parse cache is not the rendering's record, though: it does not
keep a file changed moments before it is read, nor is it rewritten for a
few changes. An entry edited a second before a save, and edited again
later, left the index that save wrote looking curated, and every save after
appended its line at the end and kept the stale one (stranger s24a).

The bytes memls wrote are exact where the entries are not: an index whose
bytes are the last rendering memls wrote is generated, however its entries
changed since. One a person edited no longer has those bytes and is judged
from the entries as before, so a curated line is never taken for a
rendering. The same holds for bytes memls saw to be the rendering of a
state it was about to forget (:func:`remember_forgotten_rendering`).

Kept outside the root, in the cache directory (``MEMLS_CACHE_DIR``), but not a cache: it is kept with caching off too
(``MEMLS_NO_CACHE``), so whether a write renders the index whole never
depends on that switch. Where nothing can be kept (the directory inside a
root, unwritable), the entries alone decide.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .cache import Stamp, cache_dir, load_private, resolved_path, root_digest, stamp_of, store_private
from .index import index_entries, is_generated_index, omission_budget, opens_like_a_rendering, render_index
from .names import INDEX_FILENAME, POLICY_FILENAME
from .reader import RootRead
from .safe_read import text_to_rewrite
from .unlisted_lines import renders_keeping_unlisted


def remember_rendering(root_dir: Path, data: bytes) -> None:
    """Keep that ``data``, just written as the root's ``MEMORY.md``, is memls's rendering (best effort)."""
    location = _location(root_dir)
    stamp = _index_stamp(root_dir)
    if location is not None and stamp is not None:
        store_private(location, resolved_path(root_dir), (stamp, _digest(data)))


def remember_forgotten_rendering(read: RootRead) -> None:
    """Keep that the root's ``MEMORY.md`` rendered the state ``read`` just dropped from the parse cache (best effort).

    A save judges an index against the root as the parse cache last held
    it, so an index rendered before an entry was deleted, moved or edited by
    hand stays generated. A read in between (``memls list``) that rewrote
    the cache dropped that state, and the save took the index for curated:
    its dead line kept, the new one appended at the end (stranger s30 P1).
    The state cannot be kept (the cache is rewritten for the files as they
    are), but the one fact a save needs from it can: these bytes were a
    rendering. The lines of the gone entries are not guessed from their
    shape: a line a person wrote in that shape, at a file that is not there,
    is theirs (stranger s31).
    """
    if not read.forgot_earlier or (read.root_dir / POLICY_FILENAME).exists():
        return
    try:
        current = text_to_rewrite(read.root_dir / INDEX_FILENAME)
    except (OSError, ValueError):
        return  # an index no writer reads whole is not judged either
    cached = read.as_cached()
    if current is None or cached is None or not opens_like_a_rendering(current[1]):
        return
    data, text = current
    if written_as_rendering(read.root_dir, data):
        return
    entries = cached.entries_for_index
    rendered = is_generated_index(text, entries) or omission_budget(text) is None and renders_keeping_unlisted(
        text, render_index(index_entries(entries, managed=False)), cached.unlisted_files)
    if rendered:
        remember_rendering(read.root_dir, data)


def written_as_rendering(root_dir: Path, data: bytes | None) -> bool:
    """Whether ``data``, the root's ``MEMORY.md`` as just read, is the last rendering memls wrote there.

    The size first: an index memls edited line by line, or a person did,
    nearly always fails there without its 1 MB being hashed at 10k
    entries. The digest decides, not the file's ``stat``: a write in the
    same instant as memls's, which the ``stat`` may not show, is still
    caught, and the same bytes written again by another tool (a checkout,
    a copy, an edit undone byte for byte) are still memls's rendering.
    """
    location = _location(root_dir) if data is not None else None
    kept = load_private(location, resolved_path(root_dir)) if location is not None else None
    return isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[0], tuple) and data is not None \
        and kept[0][0] == len(data) and kept[1] == _digest(data)


def _index_stamp(root_dir: Path) -> Stamp | None:
    try:
        return stamp_of(os.stat(root_dir / INDEX_FILENAME))
    except OSError:
        return None


def _location(root_dir: Path) -> Path | None:
    try:
        return cache_dir([root_dir]) / f"{root_digest(root_dir)}.rendered-index"
    except (OSError, RuntimeError):
        return None


def _digest(data: bytes | None) -> bytes:
    return hashlib.blake2b(data or b"", digest_size=20).digest()
