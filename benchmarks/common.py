"""Helpers shared by the benchmark scripts: machine facts, tables, JSON, venvs."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
import venv
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
WORK = BENCH_DIR / ".work"
RESULTS = BENCH_DIR / "results"
PROJECT_PYTHON = REPO / ".venv" / "bin" / "python"
GPTME_VERSION = "0.35.1"


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": platform.python_version(),
            "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%d", time.gmtime())}


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[rank]


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.0f} µs"
    return f"{value * 1e9:.0f} ns"


def fmt_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}×"


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (readable in a terminal too)."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def gptme_python(work: Path = WORK) -> Path:
    """gptme 0.35.1's own interpreter, created on first use (a venv of its own)."""
    env_dir = work / "venv-gptme"
    python = env_dir / "bin" / "python"
    if python.exists() and _has_gptme(python):
        return python
    print(f"creating {env_dir} with gptme=={GPTME_VERSION} ...", file=sys.stderr)
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"gptme=={GPTME_VERSION}"],
                   check=True)
    if not _has_gptme(python):
        raise RuntimeError(f"gptme {GPTME_VERSION} did not install into {env_dir}")
    return python


def _has_gptme(python: Path) -> bool:
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m, gptme.memory;"
         "print(m.version('gptme'))"], capture_output=True, text=True)
    return probe.returncode == 0 and probe.stdout.strip() == GPTME_VERSION


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a measured process: no memory roots leak in from home."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MEMLS_MEMORY_DIRS", "GPTME_MEMORY_DIRS", "GPTME_AGENT_WORKSPACE")}
    env.update(extra)
    return env
