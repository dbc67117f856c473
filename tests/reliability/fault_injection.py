"""A fault-injecting stand-in for the ``os`` module as ``store/files.py`` sees it.

Installed as ``memls.store.files.os``, it counts the calls the write path makes to
the functions that touch the disk and, when armed, makes the k-th call of
one of them raise (once), so every step of a commit can be failed in turn.
Only ``store/files.py`` is affected: readers, the lock and the test itself
keep the real ``os``.
"""

from __future__ import annotations

import errno
import os
from collections import Counter

FAULTABLE = ("open", "write", "fsync", "fchmod", "replace", "rename", "link", "unlink")


class FaultyOS:
    def __init__(self, fail: str | None = None, at: int = 0, error: int = errno.EIO):
        self.calls: Counter[str] = Counter()
        self.fail, self.at, self.error = fail, at, error
        self.fired = False

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if name not in FAULTABLE:
            return real

        def wrapper(*args, **kwargs):
            self.calls[name] += 1
            if not self.fired and name == self.fail and self.calls[name] == self.at:
                self.fired = True
                raise OSError(self.error, os.strerror(self.error))
            return real(*args, **kwargs)

        return wrapper


def install_from_environment() -> None:
    """For subprocess tests: ``MEMLS_FAULT=open:EROFS`` fails every ``os.open`` of a write."""
    spec = os.environ.get("MEMLS_FAULT")
    if not spec:
        return
    import memls.store.files as store_files

    function, _, code = spec.partition(":")

    class Always(FaultyOS):
        def __getattr__(self, name):
            real = getattr(os, name)
            if name != function:
                return real

            def wrapper(*args, **kwargs):
                raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)))

            return wrapper

    store_files.os = Always()
