"""The package list and the lessons' folders: ``sessions/`` and ``examples/`` of the repository
ship in the wheel as ``gradrepl.lessons.sessions`` and ``gradrepl.lessons.examples`` (see
``gradrepl/lessons/__init__.py``); everything else is in pyproject.toml."""
from setuptools import find_packages, setup

LESSONS = {"gradrepl.lessons.sessions": "sessions", "gradrepl.lessons.examples": "examples"}

setup(
    packages=find_packages(include=["gradrepl*"]) + list(LESSONS),
    package_dir=LESSONS,
    package_data={"gradrepl.lessons.sessions": ["*.pycon", "*.md"],
                  "gradrepl.lessons.examples": ["**/*.py", "**/*.out", "**/*.md"]},
)
