"""Can pip install gradrepl's default dependencies (and the extras) on each platform students use?

For every target platform, asks pip to resolve the whole dependency set from binary wheels only
(``pip download --only-binary :all: --platform ... --python-version ...``), as pip on that
machine would, and prints one line per platform: ok, or the first requirement that has no wheel.
It needs the network (or a wheel mirror) and nothing else; nothing is installed.

    python tools/check_platforms.py                 # the default install, every platform
    python tools/check_platforms.py --extra exact   # the default set plus an extra
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (name, pip --platform tags in the order pip on that machine accepts them)
PLATFORMS = [
    ("linux x86-64 glibc (manylinux2014)", ["manylinux2014_x86_64", "manylinux_2_17_x86_64"]),
    ("linux x86-64 glibc >= 2.28", ["manylinux_2_28_x86_64", "manylinux2014_x86_64",
                                    "manylinux_2_17_x86_64"]),
    ("linux aarch64 glibc (manylinux2014)", ["manylinux2014_aarch64", "manylinux_2_17_aarch64"]),
    ("linux x86-64 musl (Alpine)", ["musllinux_1_2_x86_64", "musllinux_1_1_x86_64"]),
    ("linux aarch64 musl (Alpine)", ["musllinux_1_2_aarch64", "musllinux_1_1_aarch64"]),
    ("macOS arm64", ["macosx_14_0_arm64", "macosx_11_0_arm64"]),
    ("macOS x86-64", ["macosx_10_13_x86_64", "macosx_10_9_x86_64"]),
    ("windows x86-64", ["win_amd64"]),
]


def requirements(extras):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        for req in project["optional-dependencies"][extra]:
            if not req.startswith("gradrepl["):
                reqs.append(req)
    return reqs


def check(tags, reqs, python_version):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
               "--only-binary", ":all:", "--python-version", python_version, "-d", tmp]
        for tag in tags:
            cmd += ["--platform", tag]
        proc = subprocess.run(cmd + reqs, capture_output=True, text=True)
        if proc.returncode == 0:
            return True, f"{len(list(Path(tmp).iterdir()))} wheels"
        missing = re.findall(r"No matching distribution found for (\S+)", proc.stderr)
        return False, "no wheel for " + (missing[0] if missing else proc.stderr.strip()[-200:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extra", action="append", default=[], help="add an extra's requirements")
    ap.add_argument("--python-version", default="3.11")
    args = ap.parse_args(argv)
    reqs = requirements(args.extra)
    print(f"requirements ({len(reqs)}): " + ", ".join(r.split(";")[0] for r in reqs))
    failed = 0
    for name, tags in PLATFORMS:
        ok, text = check(tags, reqs, args.python_version)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:40} {text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
