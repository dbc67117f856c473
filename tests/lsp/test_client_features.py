"""ClientFeatures: every capability the server acts on, read once from what the client declared."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.lsp.client_features import ClientFeatures


def test_a_client_declaring_nothing_gets_the_plainest_answers():
    features = ClientFeatures.read(types.ClientCapabilities())
    assert features == ClientFeatures(related_information=False)
    assert not (features.document_changes or features.resolve_code_action_edits or features.location_links)


@pytest.mark.parametrize(("profile", "document_changes", "resource_operations", "lazy_actions", "deprecated_tag"), [
    ("visual-studio-code", True, True, True, True),
    ("neovim", False, True, True, False),
    ("emacs", True, False, False, False),
])
def test_each_editor_profile_gets_the_edits_and_actions_it_declared(
        profile, document_changes, resource_operations, lazy_actions, deprecated_tag):
    features = ClientFeatures.read(client_capabilities(profile))
    assert (features.document_changes, features.resource_operations, features.resolve_code_action_edits,
            features.workspace_symbol_deprecated_tag) == (
        document_changes, resource_operations, lazy_actions, deprecated_tag)


def test_pull_diagnostics_need_both_pull_and_refresh_support():
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities()  # type: ignore[union-attr]
    assert not ClientFeatures.read(caps).pull_diagnostics
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)  # type: ignore[union-attr]
    assert ClientFeatures.read(caps).pull_diagnostics


def test_hover_is_markdown_unless_the_client_lists_formats_without_it():
    caps = types.ClientCapabilities(text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])))
    assert ClientFeatures.read(caps).hover_markdown is False
    caps.text_document.hover.content_format = None  # type: ignore[union-attr]
    assert ClientFeatures.read(caps).hover_markdown is True


@pytest.mark.parametrize(("options", "outline"), [
    ({"client": {"markdownOutline": True}}, True),
    ({"settings": {}}, False),
    ({"client": {"markdownOutline": "yes"}}, False),
    ({"client": ["markdownOutline"]}, False),
])
def test_the_markdown_outline_is_declared_in_initialization_options(options, outline):
    assert ClientFeatures.read(client_capabilities("visual-studio-code"), options=options).markdown_outline is outline
