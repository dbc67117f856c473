"""``python -m memls.lsp``: serve over stdio (the same as ``memls serve``)."""

from memls.lsp.boot import serve

serve()
