"""The probs-or-logits parameter handling several discrete families share."""
from __future__ import annotations

from ._common import Size, broadcast_all, is_num


def set_probs_or_logits(dist, probs, logits, extra=None):
    """Sets ``dist.probs`` or ``dist.logits`` (and ``_param``); returns whether the given
    parameter was a number. ``extra``: a first broadcast argument (``total_count``)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, val = ("probs", probs) if probs is not None else ("logits", logits)
    if extra is None:
        (p,) = broadcast_all(val)
        setattr(dist, name, p)
    else:
        tc, p = broadcast_all(extra, val)
        dist.total_count = tc.to(p.dtype)
        setattr(dist, name, p)
    dist._param = p
    return is_num(val)


def expand_param(new, old, batch_shape):
    if "probs" in old.__dict__:
        new.probs = old.probs.expand(batch_shape)
        new._param = new.probs
    if "logits" in old.__dict__:
        new.logits = old.logits.expand(batch_shape)
        new._param = new.logits


__all__ = ["set_probs_or_logits", "expand_param", "Size"]
