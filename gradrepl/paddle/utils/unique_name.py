"""``paddle.utils.unique_name``: names ``key_0``, ``key_1`` ... per key, with ``guard`` /
``switch`` to start a fresh counter (optionally with a prefix)."""
from __future__ import annotations

import contextlib

__all__ = ["generate", "switch", "guard"]


class UniqueNameGenerator:
    """Counters per key; ``prefix`` goes before every name."""

    def __init__(self, prefix=None):
        self.ids = {}
        self.prefix = prefix or ""

    def __call__(self, key):
        n = self.ids.get(key, 0)
        self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"


_GENERATOR = [UniqueNameGenerator()]


def generate(key):
    """A fresh name for ``key``: ``key_0``, then ``key_1`` ..."""
    return _GENERATOR[0](key)


def generate_with_ignorable_key(key):
    return generate(key)


def switch(new_generator=None, new_para_name_checker=None):
    """Use ``new_generator`` (a fresh one if None) from now on; returns the old one."""
    old = _GENERATOR[0]
    _GENERATOR[0] = new_generator if new_generator is not None else UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Fresh names inside the block (a str or bytes ``new_generator`` is a prefix)."""
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
