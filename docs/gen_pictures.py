"""The pictures of the README and the docs, drawn by gradrepl from the scripts in examples/.

One table: each row is a picture's file name and the ``gradrepl`` command that draws it (``graph``
or ``why``, the script, its options).
Nothing here is drawn by hand, so the pictures show what the engine of this checkout builds.

    python docs/gen_pictures.py            # (re)write docs/img/*.svg (the README's picture too)
    python docs/gen_pictures.py OUT_DIR    # write them somewhere else

The docs' generation step (``docs/generate.py``, before every build of the site) calls
``generate`` into the site's sources, so the site's pictures are never stale; the committed ``docs/img/*.svg`` (the README's) are refreshed
by running this script.
"""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG_DIR = os.path.join(ROOT, "docs", "img")

# name -> the arguments after `gradrepl`
PICTURES = {
    # the Paddle guide's example two, forward and backward, after backward()
    "example_two.svg": ["graph", "examples/seeds/s000_example_two.py", "--tensor", "e"],
    # the same graph before backward(): stop after the line that makes e
    "example_two_before.svg": ["graph", "examples/seeds/s000_example_two.py", "--tensor", "e",
                               "--at", "8"],
    # the backward graph with the chain rule's arithmetic on each backward op
    "example_two_chain.svg": ["graph", "examples/seeds/s000_example_two.py", "--tensor", "e",
                              "--view", "backward", "--chain"],
    # a broadcast add: b's gradient is summed over the broadcast axis
    "broadcast.svg": ["graph", "examples/graphs/broadcast.py", "--tensor", "loss",
                      "--view", "backward", "--chain"],
    # a small MLP with each Layer call as one node
    "mlp_collapsed.svg": ["graph", "examples/graphs/mlp.py", "--tensor", "loss", "--collapse"],
    # the MLP's weights and their gradients as heat maps (arrays past 8 elements)
    "mlp_heatmap.svg": ["graph", "examples/graphs/mlp.py", "--tensor", "loss", "--heatmap",
                        "--values", "8"],
    # central differences beside autograd in each leaf's gradient box
    "example_two_numeric.svg": ["graph", "examples/seeds/s000_example_two.py", "--tensor", "e",
                                "--view", "backward", "--numeric"],
    # why a.grad is 20: the path e -> c -> a highlighted
    "why_example_two.svg": ["why", "examples/seeds/s000_example_two.py", "a"],
}


def draw(name: str, out_dir: str) -> str:
    """Draw one picture of the table into out_dir; return the file's path."""
    out = os.path.join(out_dir, name)
    cmd = [sys.executable, "-m", "gradrepl", *PICTURES[name], "-o", out]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not os.path.exists(out):
        raise RuntimeError(f"gradrepl {' '.join(PICTURES[name])} failed "
                           f"(exit {done.returncode}): {done.stderr.strip()}")
    return out


def generate(out_dir: str = IMG_DIR, names=None) -> list[str]:
    """Draw the pictures named (default: all of the table) into out_dir."""
    os.makedirs(out_dir, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as pool:  # one gradrepl process per picture
        return list(pool.map(lambda name: draw(name, out_dir), names or PICTURES))


if __name__ == "__main__":
    for path in generate(sys.argv[1] if len(sys.argv) > 1 else IMG_DIR):
        print("wrote", os.path.relpath(path, ROOT))
