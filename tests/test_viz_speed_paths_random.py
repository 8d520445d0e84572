"""The random engine's fast paths give the numbers they gave before (bit for bit).

``random_engine.MT19937_64`` keeps one randomgen ``MT64`` between draws, and ``uniform`` converts
and scales the words in one pass (``uniform_from_words``); both were made for speed (vgg11's 133 M
parameters) and must not move a bit. The hashes below were recorded with the code before those
changes (commit 98fac83), for draws long enough to cross many chunks (``CHUNK``) and blocks.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from gradrepl.paddle import random_engine as R


def _h(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _engine(seed):
    e = R.MT19937_64()
    e.seed_seq(seed)
    return e


def test_large_draws_keep_their_hashes():
    e = _engine(3)
    lim = math.sqrt(6.0 / (25088 + 512))  # XavierUniform of a Linear(25088, 512): 12.8 M values
    assert _h(R.uniform(e, 25088 * 512, np.float32, -lim, lim)) == "7cab46c2566dd183"
    assert _h(R.uniform(e, 1_000_000, np.float64, -2.5, 7.0)) == "e05d6a19c4ca1dd1"
    assert _h(R.normal(e, 2_000_001, np.float32, 0.0, 0.02)) == "015022f9722c80bb"
    words, pos = e.state
    assert (_h(words), pos) == ("07aa7bc7e6c7a42b", 160)


def test_mixed_draws_keep_their_hashes():
    e = _engine(0)
    assert _h(R.uniform(e, 2_500_000, np.float32, -0.01, 0.01)) == "4e8eb6092022f1e4"
    assert _h(R.uniform(e, 1_000_003, np.float64, 0.0, 1.0)) == "5589711b797fca25"
    assert _h(R.normal(e, 1_000_001, np.float32, 0.0, 0.05)) == "5994c2c63059a6d4"
    # (the C library's log, as real Paddle: numpy's AVX-512 log differs in the last bit of 0.3%
    # of values and had made this hash depend on the CPU)
    assert _h(R.normal(e, 300_001, np.float64, 1.0, 2.0)) == "745da8facf308ed7"
    assert _h(R.uniform(e, 7, np.float32, -3.0, 5.0)) == "ad598334945940cd"
    words, pos = e.state
    assert (_h(words), pos) == ("a4271fc7b590912c", 202)
    e = R.MT19937_64(5489)
    assert _h(e.draw(1000)) == "436b812171eb784b"
    assert _h(e.draw(100_000)) == "e79bd896e0411efc"
    words, pos = e.state
    assert (_h(words), pos) == ("2ca425de327c4349", 224)


def test_layers_keep_their_weights():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import state

    state.reset("3")
    try:
        paddle.seed(7)
        lin, conv = paddle.nn.Linear(2000, 1500), paddle.nn.Conv2D(64, 128, 3)
        assert [_h(x.numpy()) for x in (lin.weight, lin.bias, conv.weight, conv.bias)] == [
            "45e4565e8b35c15a", "a6bedce1e512d653", "d818d5bd25095d9b", "076a27c79e5ace2a"]
        assert _h(paddle.rand([5]).numpy()) == "4596603c226cba6d"
        state.reset("2.2")
        paddle.seed(11)
        lin = paddle.nn.Linear(3000, 1000)
        assert [_h(x.numpy()) for x in (lin.weight, lin.bias)] == ["a88d85c2ffdbac17",
                                                                   "fc19b19971194257"]
    finally:
        state.reset(None)


def _reference(words, t, low, high):
    """The formula as written before: canonical(words) * span + low, in T."""
    lo, hi = t(np.float32(low)), t(np.float32(high))
    span = t(hi - lo)
    u = words.astype(t) * t(2.0 ** -64)
    u = np.minimum(u, np.nextafter(t(1), t(0)))
    out = np.empty(len(words), t)
    with np.errstate(all="ignore"):
        np.multiply(u, span, out=out)
        out += lo
    return out


EDGE_WORDS = [0, 1, 2, (1 << 24) - 1, 1 << 63, (1 << 63) - 1, (1 << 64) - 1, (1 << 64) - 2,
              (1 << 64) - (1 << 39), (1 << 64) - (1 << 39) - 1, (1 << 64) - (1 << 40),
              (1 << 64) - (1 << 40) - 1, (1 << 64) - (1 << 10), (1 << 64) - (1 << 10) - 1,
              (1 << 64) - (1 << 11), (1 << 64) - (1 << 11) - 1, 0x9E3779B97F4A7C15]


@pytest.mark.parametrize("t", [np.float32, np.float64])
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-1.0, 1.0), (-0.015, 0.015), (2.0, 2.0),
                                      (-0.0, 0.0), (0.0, -0.0), (1.0, 0.5), (0.0, 1e-30),
                                      (-1e-25, 1e-25), (-3e38, 3e38), (-3.4e38, 3.4e38),
                                      (5.0, 1e-45), (float("nan"), 1.0)])
def test_uniform_from_words_is_the_formula(t, low, high):
    rng = np.random.default_rng(0)
    words = np.concatenate([np.array(EDGE_WORDS, np.uint64),
                            rng.integers(0, 2 ** 64, 5000, dtype=np.uint64, endpoint=False)])
    with np.errstate(all="ignore"):
        want = _reference(words.copy(), t, low, high)
        lo, hi = t(np.float32(low)), t(np.float32(high))
        got = R.uniform_from_words(words.copy(), t, lo, t(hi - lo), np.empty(len(words), t))
    assert got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()  # (bits: -0.0 and NaNs included)


def test_kept_generator_and_state_round_trip():
    e = _engine(42)
    e.draw(10)
    saved = e.state
    a = e.draw(70_000)
    e.state = saved
    b = e.draw(70_000)
    assert a.tobytes() == b.tobytes()
    slow = _engine(42)
    R.FAST[0] = False
    try:
        slow.draw(10)
        c = slow.draw(70_000)
        d = R.uniform(slow, 1000, np.float32, -1.0, 1.0)
    finally:
        R.FAST[0] = True
    assert c.tobytes() == a.tobytes()
    assert d.tobytes() == R.uniform(e, 1000, np.float32, -1.0, 1.0).tobytes()
    np.testing.assert_array_equal(slow.state[0], e.state[0])
    assert slow.state[1] == e.state[1]


def _uniform_and_state(monkeypatch, ahead_min, n, seed=11):
    monkeypatch.setattr(R, "AHEAD_MIN", ahead_min)
    e = _engine(seed)
    out = R.uniform(e, n, np.float32, -0.5, 0.5)
    words, pos = e.state
    return out, _h(words), pos


@pytest.mark.parametrize("n", [8 * R.CHUNK, 8 * R.CHUNK + 1, 11 * R.CHUNK - 7])
def test_words_drawn_ahead_are_the_words_drawn_in_turn(monkeypatch, n):
    """The helper thread draws the next chunk while this one converts: the same values and the
    same engine state after, as one thread drawing and converting in turn."""
    ahead = _uniform_and_state(monkeypatch, 1, n)
    in_turn = _uniform_and_state(monkeypatch, 1 << 62, n)
    assert np.array_equal(ahead[0], in_turn[0]) and ahead[1:] == in_turn[1:]


def test_without_threads_the_draws_run_in_turn(monkeypatch):
    """Where no thread can start (``--safe``'s task limit), the same values, drawn in turn."""
    def no_thread():
        raise RuntimeError("can't start new thread")

    want = _uniform_and_state(monkeypatch, 1 << 62, 9 * R.CHUNK)
    monkeypatch.setattr(R, "_helper", no_thread)
    got = _uniform_and_state(monkeypatch, 1, 9 * R.CHUNK)
    assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]


def test_a_forked_child_draws_with_its_own_helper(monkeypatch):
    """A child forked after the parent's helper thread started (a DataLoader's workers) makes its
    own helper instead of waiting on the parent's, and draws the same values."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork here")
    want, _w, _p = _uniform_and_state(monkeypatch, 1, 9 * R.CHUNK)  # (the helper started)
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=lambda: q.put(_h(_uniform_and_state(monkeypatch, 1,
                                                                   9 * R.CHUNK)[0])))
    child.start()
    got = q.get(timeout=60)
    child.join(60)
    assert got == _h(want) and child.exitcode == 0
