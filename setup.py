"""The package list and the lessons' folders: ``sessions/`` and ``examples/`` of the repository
ship in the wheel as ``gradrepl.lessons.sessions`` and ``gradrepl.lessons.examples`` (see
``gradrepl/lessons/__init__.py``); everything else is in pyproject.toml.

The native kernels (``gradrepl/engine/_cnative.c``, loaded by ``gradrepl/engine/_native.py``) are
an OPTIONAL extension: built where a C compiler and Python's headers are found, skipped with a
warning elsewhere (the numpy replays compute the same bits, slower). No contraction of
``a * b + c`` into a fused multiply-add (aarch64's gcc contracts by default), no fast-math."""
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

LESSONS = {"gradrepl.lessons.sessions": "sessions", "gradrepl.lessons.examples": "examples"}

# per compiler family: optimised, IEEE arithmetic as written (fmaf/fma only where written)
FLAGS = {"msvc": ["/O2", "/fp:precise"],
         "unix": ["-O2", "-ffp-contract=off", "-fno-fast-math", "-fno-finite-math-only"]}


class BuildExt(build_ext):
    def build_extensions(self):
        flags = FLAGS.get(self.compiler.compiler_type, FLAGS["unix"])
        for ext in self.extensions:
            ext.extra_compile_args = flags
        super().build_extensions()


setup(
    packages=find_packages(include=["gradrepl*"]) + list(LESSONS),
    package_dir=LESSONS,
    package_data={"gradrepl.lessons.sessions": ["*.pycon", "*.md"],
                  "gradrepl.lessons.examples": ["**/*.py", "**/*.out", "**/*.md"]},
    ext_modules=[Extension("gradrepl.engine._cnative", ["gradrepl/engine/_cnative.c"],
                           optional=True)],
    cmdclass={"build_ext": BuildExt},
)
