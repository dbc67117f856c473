"""The URI sent for a file the model names: what pygls's ``from_fs_path`` makes of its path, however it is made."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memls.lsp.client_uris import ClientUris
from memls.lsp.convert import path_to_uri

NAMES = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=12)
DIRECTORIES = st.sampled_from(["/", "/tmp/memory", "/tmp/wörk dir/memory", "/a%20b/#x?y", "//server/share/mem",
                               "/tmp/C:/memory", "/x/\\back"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(DIRECTORIES, NAMES), min_size=1, max_size=20))
def test_each_file_s_uri_is_its_whole_path_s_uri(files: list[tuple[str, str]]) -> None:
    uris = ClientUris()
    for directory, name in files:
        path = Path(directory) / name
        assert uris.uri(path) == path_to_uri(path)
