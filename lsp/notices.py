"""Messages the server shows when it did something other than what was typed.

The engine turns every name into its slug (only letters, digits and ``-``:
``a/b`` becomes ``a-b``, ``../../escape`` becomes ``escape``), because that is
the name gptme writes and the file it is stored in. A rename or a new memory
under a name the user did not type is correct but surprising, so the user is
told which name was used.
"""

from __future__ import annotations

from lsprotocol import types


def name_used(requested: str, used: str) -> types.ShowMessageParams | None:
    """The message saying the entry got the name ``used`` instead of ``requested``; None when equal."""
    if requested == used:
        return None
    return types.ShowMessageParams(
        type=types.MessageType.Info,
        message=f"memls: '{requested}' is not a memory name as written; the entry is named '{used}' "
                "(names keep letters, digits and '-')")
