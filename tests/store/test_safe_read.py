"""The one bounded read of a regular file: a FIFO or a device in a file's place is refused, never opened or drained."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memls.store.safe_read import (
    FileTooLarge,
    NotRegularFile,
    NotUtf8,
    read_at_most,
    read_whole,
    text_to_rewrite,
)

pytestmark = pytest.mark.timeout(20)  # a FIFO opened for reading blocks until a writer comes


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "MEMORY.md"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="not a regular file"):
        read_whole(fifo, 1024)
    with pytest.raises(NotRegularFile):
        read_at_most(fifo, 1024)


def test_a_symlink_to_dev_zero_is_refused_not_read_without_bound(tmp_path: Path) -> None:
    link = tmp_path / "MEMORY.md"
    link.symlink_to("/dev/zero")
    with pytest.raises(NotRegularFile):
        read_whole(link, 64 * 1024 * 1024)


def test_a_directory_is_refused_as_python_words_it(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").mkdir()
    with pytest.raises(IsADirectoryError):
        read_whole(tmp_path / "MEMORY.md", 1024)


def test_no_more_than_one_byte_past_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 5000)
    assert read_at_most(path, 100) == b"x" * 101
    with pytest.raises(FileTooLarge):
        read_whole(path, 100)
    assert read_whole(path, 5000) == b"x" * 5000


def test_an_absent_file_or_a_dangling_link_is_none(tmp_path: Path) -> None:
    assert read_whole(tmp_path / "missing.md", 10) is None
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere")
    assert read_whole(tmp_path / "dangling.md", 10) is None


def test_a_writer_refuses_text_that_is_not_utf8_in_one_line_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"# M\n- [x](e01.md) \xff\xfe hook\n")
    with pytest.raises(NotUtf8) as raised:
        text_to_rewrite(path)
    assert str(raised.value) == f"{path} is not UTF-8 text (byte 18); refusing to change it: save it as UTF-8 text first"
    os.unlink(path)
    os.mkfifo(path)
    with pytest.raises(NotRegularFile, match="refusing to change .*not a regular file"):
        text_to_rewrite(path)
