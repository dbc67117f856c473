"""Bounded reads of regular files: the one way memls opens a file it reads whole.

A memory root is a directory anyone can write, so the name ``MEMORY.md`` (or
``.memory-index.json``, or an entry) may be a FIFO, a device, a directory or a
symlink to one. Opening a FIFO for reading blocks until a writer comes (a
language server's scan never ended); reading ``/dev/zero`` never ends (10 GB
in 20 s). So a file is stat-ed before it is opened, opened non-blocking, and
checked again on the open descriptor (a FIFO swapped in between the two cannot
block), and no more than one byte past the caller's limit is ever read.

This module imports nothing from the rest of the engine, so every layer (the
reader, the model, the writers) can use it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# ``MEMORY.md`` is read up to this size (a generated index passes 1 MiB near
# ten thousand entries); the readers' name for it is ``memls.store.reader.MAX_INDEX_BYTES``.
MAX_INDEX_BYTES = 64 * 1024 * 1024

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path names something that is not a regular file (a FIFO, a device, a socket)."""


class FileTooLarge(OSError):
    """The file holds more bytes than the caller reads."""


class NotUtf8(ValueError):
    """A file memls would rewrite is not UTF-8 text: it is left as it is."""


def not_regular_error(path: Path | str, mode: int) -> OSError:
    """The error a read of ``path`` (of type ``mode``) raises: a directory as Python words it, else :class:`NotRegularFile`."""
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    return NotRegularFile(f"not a regular file: {path}")


def read_at_most(path: Path | str, limit: int) -> bytes:
    """The first ``limit + 1`` bytes of the regular file at ``path`` (more than ``limit``: too large).

    Never opens what is not a regular file (raises :class:`NotRegularFile` or
    ``IsADirectoryError``); a missing file raises ``FileNotFoundError``.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise not_regular_error(path, st.st_mode)
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped in after the stat
            raise not_regular_error(path, st.st_mode)
        parts = []
        left = limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            parts.append(chunk)
            left -= len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


def read_whole(path: Path | str, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path``; None when there is no file there.

    Raises :class:`FileTooLarge` past ``limit`` bytes and :class:`NotRegularFile`
    (or ``IsADirectoryError``) for what is not a regular file.
    """
    try:
        data = read_at_most(path, limit)
    except FileNotFoundError:
        return None
    if len(data) > limit:
        raise FileTooLarge(f"{path} is larger than {limit} bytes; not read")
    return data


def text_to_rewrite(path: Path | str, limit: int = MAX_INDEX_BYTES) -> tuple[bytes, str] | None:
    """The bytes and text of a file a writer is about to change (``MEMORY.md``); None when absent.

    Refuses, with one line that names the file, what memls cannot read whole
    as UTF-8: a write computed from it would replace bytes memls never read.
    """
    try:
        data = read_whole(path, limit)
    except FileTooLarge:
        raise FileTooLarge(
            f"refusing to change {path}: it is larger than {limit // (1024 * 1024)} MiB, so memls does not "
            "read it; regenerate it with `memls index --write`"
        ) from None
    except (NotRegularFile, IsADirectoryError):
        raise NotRegularFile(
            f"refusing to change {path}: it is not a regular file (a FIFO, a device or a directory); "
            "memls neither reads nor replaces it"
        ) from None
    if data is None:
        return None
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8(
            f"{path} is not UTF-8 text (byte {exc.start}); refusing to change it: "
            "save it as UTF-8 text first"
        ) from None
