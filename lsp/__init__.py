"""memls's language server: translates between LSP and the :mod:`store` engine."""

# The distribution's version is this attribute (pyproject.toml reads it), so
# the server need not ask importlib.metadata, whose import alone was a tenth
# of what memls adds to a start.
from memls import __version__

__all__ = ["__version__"]
