"""DOT -> SVG / PNG / PDF with Graphviz's layout.

The layout program is the system ``dot`` when one is on PATH, else the ``graphviz-pure`` binary
that pip installs with gradrepl (a Rust port of Graphviz: SVG and PNG, no PDF). PDF comes from a
system Graphviz, else from the SVG through svglib + reportlab when those are installed, else a
clear error naming the fix. ``GRADREPL_DOT`` names another binary.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FORMATS = ("svg", "png", "pdf")


class RenderError(RuntimeError):
    pass


def pure_binary() -> str | None:
    """The ``graphviz-pure`` executable of this Python's environment (or on PATH)."""
    here = Path(sys.executable).parent / "graphviz-pure"
    if here.exists():
        return str(here)
    return shutil.which("graphviz-pure")


def find_dot(prefer: str | None = None) -> tuple[str, str]:
    """(path, kind) of the layout binary: kind is "system" or "pure".

    ``prefer``: "system" or "pure" to insist on one (tests and benchmarks compare both).
    """
    env = os.environ.get("GRADREPL_DOT")
    if env and prefer is None:
        return env, "pure" if "graphviz-pure" in os.path.basename(env) else "system"
    if prefer in (None, "system"):
        system = shutil.which("dot")
        if system:
            return system, "system"
        if prefer == "system":
            raise RenderError("no system Graphviz `dot` on PATH")
    pure = pure_binary()
    if pure:
        return pure, "pure"
    raise RenderError("no Graphviz layout program found: install Graphviz (apt-get install "
                      "graphviz) or `pip install graphviz-pure`")


# Raster and page formats are capped (inches, Graphviz's ``size``: a larger drawing is scaled
# down to fit): graphviz-pure allocates the whole PNG at once (a 300-op graph asked 20 GB), and
# PDF viewers refuse pages beyond 200 inches. SVG keeps its natural size.
MAX_INCHES = {"png": "100,100", "pdf": "200,200"}
# a picture drawn with --size (theme.Style, at most 100 inches a side) keeps its own
_OWN_SIZE = re.compile(r"\A[^\n]*\n\tgraph \[[^\n]*\bsize=").match


def run_dot(source: str, fmt: str, prefer: str | None = None, timeout: float = 120) -> bytes:
    """Lay out ``source`` and return the bytes of format ``fmt`` (svg, png or pdf)."""
    binary, _kind = find_dot(prefer)
    args = [binary, f"-T{fmt}"]
    if fmt in MAX_INCHES and not _OWN_SIZE(source, 0, 600):  # (a -G would override --size)
        args.append(f"-Gsize={MAX_INCHES[fmt]}")
    try:
        proc = subprocess.run(args, input=source.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RenderError(f"{os.path.basename(binary)} took longer than {timeout:.0f} s; "
                          "cut the picture with --depth N or --collapse") from None
    if proc.returncode != 0 or not proc.stdout:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"{os.path.basename(binary)} -T{fmt} failed: "
                          f"{err[-1] if err else 'exit ' + str(proc.returncode)}")
    return proc.stdout


def svg(source: str, prefer: str | None = None) -> str:
    return run_dot(source, "svg", prefer).decode("utf-8")


def png(source: str, prefer: str | None = None) -> bytes:
    return run_dot(source, "png", prefer)


def pdf(source: str, prefer: str | None = None) -> bytes:
    binary, kind = find_dot(prefer)
    if kind == "system":
        return run_dot(source, "pdf", prefer)
    try:
        from reportlab.graphics import renderPDF
        from svglib.svglib import svg2rlg
    except ImportError:
        raise RenderError("PDF needs a system Graphviz (apt-get install graphviz) or "
                          "`pip install svglib reportlab`; SVG and PNG work without them") \
            from None
    import io

    svg_text = run_dot(source.replace("digraph gradrepl {", "digraph gradrepl {\n\tsize=\"200,200\"", 1),
                       "svg", prefer)
    drawing = svg2rlg(io.BytesIO(svg_text))
    return renderPDF.drawToString(drawing)


def write_atomic(path, data) -> None:
    """Write ``data`` (str or bytes) to ``path`` through a temporary file: a failure leaves
    nothing half-written."""
    path = Path(path)
    if isinstance(data, str):  # (a name with a lone surrogate: written as U+FFFD, not a crash)
        from .sanitize import text

        data = text(data)
    mode = "w" if isinstance(data, str) else "wb"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent or "."))
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it owner-only; a picture is not secret
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
