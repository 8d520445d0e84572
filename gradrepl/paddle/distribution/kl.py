"""``paddle.distribution.kl_divergence`` and ``register_kl``: KL(p || q) by the pair's types."""
from __future__ import annotations

_REGISTRY = {}


def register_kl(cls_p, cls_q):
    """Decorator: ``fn(p, q)`` computes KL for p of ``cls_p`` and q of ``cls_q``."""
    def decorate(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn
    return decorate


def kl_divergence(p, q):
    """KL(p || q): a registered function for the closest pair of types, else p's own method."""
    matches = [(cp, cq) for cp, cq in _REGISTRY if isinstance(p, cp) and isinstance(q, cq)]
    if matches:
        best = min(matches, key=lambda pq: (type(p).__mro__.index(pq[0]),
                                            type(q).__mro__.index(pq[1])))
        return _REGISTRY[best](p, q)
    if type(p) is type(q):
        return p.kl_divergence(q)
    raise NotImplementedError(f"{type(p).__name__} and {type(q).__name__} have no registered "
                              "kl_divergence")
