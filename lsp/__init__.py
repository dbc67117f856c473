"""memls's language server: translates between LSP and the :mod:`store` engine."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("memls")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0+unknown"
