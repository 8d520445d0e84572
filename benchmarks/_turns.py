"""Running peers in turns: this shared machine's speed drifts by a third within minutes (and a
whole process is sometimes half as fast as the next), so the frameworks take turns, round after
round, and each keeps its best result."""
from __future__ import annotations


def best_in_turns(frameworks, rounds, run_one, better):
    """``{name: best result}`` over ``rounds`` rounds of ``run_one(python, name)`` for each
    ``(name, python)`` in turn; ``run_one`` gives ``(result, error)``, ``better(old, new)`` the
    result to keep. A failing peer is reported and skipped; gradrepl failing raises."""
    best = {}
    for _ in range(rounds):
        for name, python in frameworks:
            res, err = run_one(python, name)
            if res is None:
                if name == "gradrepl":
                    raise RuntimeError(f"gradrepl failed: {err}")
                print(f"({name} failed: {err})")
                continue
            best[name] = res if name not in best else better(best[name], res)
    return best
