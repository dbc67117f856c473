"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp.

Every test runs once per client profile captured from a real editor
(VS Code 1.65, Neovim 0.11, Emacs 29.1 eglot), so the push/pull choice,
watcher fallback and edit capabilities are exercised the way each editor
meets them. ``LspSpecificationWarning`` is an error (see pyproject.toml).
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lsp.convert import path_to_uri

PROFILES = ("visual-studio-code", "neovim", "emacs")
WAIT = 10.0


def entry(name: str, description: str = "d", extra: str = "", body: str = "", type_: str = "project") -> str:
    """A valid entry; ``extra`` is raw YAML appended to the frontmatter."""
    return (
        f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: {type_}\n'
        + textwrap.dedent(extra) + "---\n\n" + body
    )


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "lsp"],
        server_env={**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": ""},
    ),
    params=PROFILES,
)
async def client(request, lsp_client: LanguageClient):
    lsp_client.memls_profile = request.param  # type: ignore[attr-defined]
    lsp_client.registrations = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        # What an editor does: remember the registration and say yes.
        lsp_client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=True)

    lsp_client.applied_edits = []  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


class Session:
    """A workspace folder with a memory root, and the client that opened it."""

    def __init__(self, client: LanguageClient, folder: Path):
        self.client = client
        self.folder = folder
        self.root = folder / "memory"

    @property
    def profile(self) -> str:
        return self.client.memls_profile  # type: ignore[attr-defined]

    @property
    def pull(self) -> bool:
        return self.profile == "visual-studio-code" and False

    def uri(self, name: str) -> str:
        return path_to_uri(self.root / name)

    def open(self, name: str, text: str | None = None, version: int = 1) -> str:
        path = self.root / name
        if text is None:
            text = path.read_text(encoding="utf-8")
        uri = path_to_uri(path)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)))
        return uri

    def change(self, name: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri(name), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, name: str, predicate: Callable[[list[types.Diagnostic]], bool] = bool,
                          timeout: float = WAIT) -> list[types.Diagnostic]:
        """The diagnostics of a file once ``predicate`` holds (push or pull, as the client does)."""
        uri = self.uri(name)
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            current = await self._current(uri)
            if predicate(current):
                return current
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"diagnostics of {name} never matched; last: {current}")
            await asyncio.sleep(0.05)

    async def _current(self, uri: str) -> list[types.Diagnostic]:
        caps = self.client.capabilities
        pull = bool(caps and caps.text_document and caps.text_document.diagnostic
                    and caps.workspace and caps.workspace.diagnostics
                    and caps.workspace.diagnostics.refresh_support)
        if pull:
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
            return list(getattr(report, "items", None) or [])
        return list(self.client.diagnostics.get(uri, []))

    def codes(self, diagnostics: list[types.Diagnostic]) -> set[str]:
        return {str(d.code) for d in diagnostics}


@pytest.fixture
def start(client: LanguageClient, tmp_path: Path):
    """``await start({"a.md": text, ...})`` writes the root and initializes the session."""

    async def _start(files: Mapping[str, str], *, settings: dict | None = None,
                     index: str | None = None) -> Session:
        folder = tmp_path / "workspace"
        root = folder / "memory"
        root.mkdir(parents=True)
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8")
        if index is not None:
            (root / "MEMORY.md").write_text(index, encoding="utf-8")
        profile = client.memls_profile  # type: ignore[attr-defined]
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities(profile),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name="workspace")],
            root_uri=path_to_uri(folder),
            initialization_options={"settings": settings or {}},
            process_id=os.getpid(),
        ))
        return Session(client, folder)

    return _start
