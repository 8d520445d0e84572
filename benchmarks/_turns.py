"""Running peers in turns: this shared machine's speed drifts by a third within minutes (and a
whole process is sometimes half as fast as the next), so the frameworks take turns, round after
round, and each keeps its best result."""
from __future__ import annotations


def best_in_turns(frameworks, rounds, run_one, better, per_round=None):
    """``{name: best result}`` over ``rounds`` rounds of ``run_one(python, name)`` for each
    ``(name, python)`` in turn; ``run_one`` gives ``(result, error)``, ``better(old, new)`` the
    result to keep. A failing peer is reported and skipped; gradrepl failing raises.
    ``per_round``, a list, receives each round's ``{name: result}`` (for paired ratios: the
    runs of one round are seconds apart, so they share the machine's state of the moment)."""
    best = {}
    for _ in range(rounds):
        this_round = {}
        if per_round is not None:
            per_round.append(this_round)
        for name, python in frameworks:
            res, err = run_one(python, name)
            if res is None:
                if name == "gradrepl":
                    raise RuntimeError(f"gradrepl failed: {err}")
                print(f"({name} failed: {err})")
                continue
            this_round[name] = res
            best[name] = res if name not in best else better(best[name], res)
    return best


def paired_ratios(per_round, key, base="gradrepl"):
    """``{name: sorted [base / name]}`` of ``key`` within each round where both ran."""
    out = {}
    for rnd in per_round:
        if base not in rnd:
            continue
        for name, res in rnd.items():
            if name != base:
                out.setdefault(name, []).append(rnd[base][key] / res[key])
    return {k: sorted(v) for k, v in out.items()}
