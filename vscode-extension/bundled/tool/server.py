"""Start the memls language server bundled with the VS Code extension.

The extension runs ``<python> bundled/tool/server.py`` when no installed
``memls`` is configured or on PATH. The bundled libraries (``../libs``) go
first on ``sys.path`` so a different ``memls`` or ``pygls`` in
the interpreter's environment cannot shadow them; the one exception is a PyYAML
with libyaml already in that environment, which is kept because it reads
memory files several times faster than the bundled pure-Python PyYAML.
"""

import os
import sys

MINIMUM = (3, 10)


def _keep_fast_yaml():
    """Import the environment's PyYAML if it is 6.x with libyaml; otherwise forget it."""
    try:
        import yaml
    except Exception:  # noqa: BLE001 - any failure means: use the bundled one
        return
    major = str(getattr(yaml, "__version__", "0")).split(".")[0]
    if getattr(yaml, "__with_libyaml__", False) and major.isdigit() and int(major) >= 6:
        return
    for name in [m for m in sys.modules if m == "yaml" or m.startswith("yaml.") or m == "_yaml"]:
        del sys.modules[name]


def main():
    if sys.version_info < MINIMUM:
        sys.stderr.write(
            "memls needs Python %d.%d or newer; %s is Python %d.%d. "
            "Set memls.server.interpreter to a newer Python.\n"
            % (MINIMUM + (sys.executable,) + tuple(sys.version_info[:2]))
        )
        sys.exit(2)
    if os.environ.get("MEMLS_BUNDLED_YAML") != "1":
        _keep_fast_yaml()
    libs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")
    sys.path.insert(0, libs)
    from memls.lsp.boot import serve

    serve()


if __name__ == "__main__":
    main()
