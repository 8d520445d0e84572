"""Paddle's CPU random numbers: a ``std::mt19937_64`` stream and the libstdc++ distributions
Paddle's kernels draw from it, on whole arrays, so ``paddle.seed(0); paddle.randn([3])`` gives
Paddle's numbers bit for bit.

Each kernel builds a fresh distribution object per call (measured on Paddle 2.6.2 and 3.3.1):

- uniform (``std::uniform_real_distribution<T>``): one 64-bit draw a value,
  ``u = T(draw) / 2**64`` (the largest value below 1 when that rounds to 1), then
  ``u * (max - min) + min`` in ``T``; min and max pass through float32 first;
- gaussian (``std::normal_distribution<T>``, Marsaglia's polar method): pairs of uniforms
  ``x = 2u - 1``, ``y = 2u - 1`` until ``0 < x*x + y*y <= 1``, ``m = sqrt(-2 log(r2) / r2)``;
  the call returns ``y*m`` and keeps ``x*m`` for its next value (dropped at the end of an odd
  count), then ``value * std + mean`` in ``T``; ``log`` is the C library's;
- integers (``std::uniform_int_distribution``) and ``std::shuffle``: see ``integers``,
  ``shuffle``.

float16 (and bfloat16) tensors draw from the float distributions and round. The mt19937_64
recurrence runs a block of 312 words at a time on one Python integer (about twice as fast as
numpy on arrays that short: the recurrence has no independent stretch longer than 156 words);
tempering and the distributions run on numpy arrays.
"""
from __future__ import annotations

import math

import numpy as np

try:  # randomgen's MT64 is std::mt19937_64 in C: the same words, 10-15x faster than numpy
    from randomgen import MT64 as _MT64
except Exception:  # noqa: BLE001 (absent or broken: the numpy recurrence below is the same)
    _MT64 = None

U64 = np.uint64
_N, _M = 312, 156                      # mt19937_64: state words, twist offset
_MASK64 = (1 << 64) - 1
_MATRIX_A = 0xB5026F5AA96619E9
_HALF_BITS = _M * 64
CHUNK = 1 << 16                        # values a distribution works on at a time (in cache)


def _every_word(w):
    return int.from_bytes(np.full(_N, w, U64).tobytes(), "little")


_UPPER = _every_word(0xFFFFFFFF80000000)
_LOWER = _every_word(0x7FFFFFFE)       # the lower mask without bit 0 (it is the odd bit below)
_ONES = _every_word(1)
_A_WORDS = _every_word(_MATRIX_A)
_HALF = (1 << _HALF_BITS) - 1


def _twist(state, blocks):
    """The next ``blocks * 312`` untempered words after the 312 words ``state``.

    Word ``j + 312`` is ``word[j + 156] ^ twist(word[j], word[j + 1])``: a block is one Python
    integer; the twist terms of all 312 words come from the old block (the last one's
    ``word[j + 1]`` is the new first word, patched in), the new low half is the old high half
    XOR its terms, and the new high half the new low half XOR its terms.
    """
    block = int.from_bytes(state.tobytes(), "little")
    out = []
    add = out.append
    last = _HALF_BITS - 64
    for _ in range(blocks):
        nxt = block >> 64
        odd = nxt & _ONES               # the words whose next word is odd get MATRIX_A
        terms = (((block & _UPPER) | (nxt & _LOWER)) >> 1) ^ (((odd << 64) - odd) & _A_WORDS)
        low = (block >> _HALF_BITS) ^ (terms & _HALF)
        first = low & _MASK64
        patch = ((first & 0x7FFFFFFE) >> 1) ^ (_MATRIX_A if first & 1 else 0)
        high = low ^ (terms >> _HALF_BITS) ^ (patch << last)
        block = low | (high << _HALF_BITS)
        add(block.to_bytes(_N * 8, "little"))
    return np.frombuffer(b"".join(out), U64)


def _temper(x):
    x = x ^ ((x >> U64(29)) & U64(0x5555555555555555))
    x ^= (x << U64(17)) & U64(0x71D67FFFEDA60000)
    x ^= (x << U64(37)) & U64(0xFFF7EEE000000000)
    x ^= x >> U64(43)
    return x


def _seed_seq(values, n):
    """``std::seed_seq(values).generate`` of ``n`` 32-bit words (the C++ standard's algorithm)."""
    m32 = 0xFFFFFFFF
    v = [x & m32 for x in values]
    s = len(v)
    out = [0x8B8B8B8B] * n
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)
    for k in range(m):
        x = out[k % n] ^ out[(k + p) % n] ^ out[(k - 1) % n]
        r1 = (1664525 * (x ^ (x >> 27))) & m32
        r2 = (r1 + (s if k == 0 else (k % n + v[k - 1]) if k <= s else k % n)) & m32
        out[(k + p) % n] = (out[(k + p) % n] + r1) & m32
        out[(k + q) % n] = (out[(k + q) % n] + r2) & m32
        out[k % n] = r2
    for k in range(m, m + n):
        x = (out[k % n] + out[(k + p) % n] + out[(k - 1) % n]) & m32
        r3 = (1566083941 * (x ^ (x >> 27))) & m32
        r4 = (r3 - k % n) & m32
        out[(k + p) % n] ^= r3
        out[(k + q) % n] ^= r4
        out[k % n] = r4
    return out


def seed_words(seed):
    """``std::mt19937_64::seed(seed)``'s 312 words (a kernel's own ``seed`` attribute)."""
    words = [seed & _MASK64]
    for i in range(1, _N):
        p = words[-1]
        words.append((6364136223846793005 * (p ^ (p >> 62)) + i) & _MASK64)
    return np.array(words, U64)


def seed_seq_words(seed):
    """The 312 words of ``std::mt19937_64`` seeded as Paddle's generator seeds it: from
    ``std::seed_seq({seed})`` (which keeps the seed's low 32 bits)."""
    arr = _seed_seq([seed], 2 * _N)
    words = np.array(arr, U64).reshape(_N, 2)
    words = words[:, 0] | (words[:, 1] << U64(32))
    if not (int(words[0]) >> 31) and not words[1:].any():
        words[0] = U64(1 << 63)
    return words


FAST = [True]  # tests switch it off to run the numpy recurrence


class MT19937_64:
    """``std::mt19937_64``: ``seed(s)`` / ``seed_seq(s)``, ``draw(n)`` (the next n outputs),
    ``state`` (its 312 words and position).

    With randomgen present the state lives in one ``MT64`` kept between draws (``_gen``: the same
    words and position; made on the first draw, dropped when the state is set); else in
    ``_words`` and ``_pos``, run by the numpy recurrence."""

    def __init__(self, seed=5489):
        self.seed(seed)

    def seed(self, seed):
        self._set(seed_words(int(seed)), _N)

    def seed_seq(self, seed):
        self._set(seed_seq_words(int(seed)), _N)

    def _set(self, words, pos):
        self._words = words
        self._pos = pos
        self._gen = None

    def _sync(self):
        """Bring ``_words`` and ``_pos`` up to date from the kept generator, and drop it."""
        gen = self._gen
        if gen is not None:
            after = gen.state["state"]
            self._words = np.array(after["key"], U64)
            self._pos = int(after["pos"])
            self._gen = None

    @property
    def state(self):
        """(the 312 words, the index of the next one): everything the engine is."""
        gen = self._gen
        if gen is not None:
            after = gen.state["state"]
            return np.array(after["key"], U64), int(after["pos"])
        return self._words.copy(), self._pos

    @state.setter
    def state(self, value):
        words, pos = value
        self._set(np.array(words, U64), int(pos))

    def _fast_gen(self):
        """randomgen's MT64 holding our state (made once, then kept)."""
        gen = self._gen
        if gen is None:
            gen = _MT64(0)
            state = gen.state
            state["state"] = {"key": self._words, "pos": self._pos}
            gen.state = state
            self._gen = gen
        return gen

    def draw(self, n):
        """The next ``n`` outputs (uint64)."""
        n = int(n)
        if _MT64 is not None and FAST[0]:
            return self._fast_gen().random_raw(n)
        self._sync()
        have = min(n, _N - self._pos)
        head = self._words[self._pos:self._pos + have]
        self._pos += have
        rest = n - have
        if rest == 0:
            return _temper(head)
        blocks = -(-rest // _N)
        raw = _twist(self._words, blocks)
        self._words = raw[-_N:].copy()
        self._pos = rest - (blocks - 1) * _N
        return _temper(np.concatenate([head, raw[:rest]]))


# ------------------------------------------------------------------------------ distributions
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _math_dtype(dtype):
    """The distribution's type: double for float64, float for the rest."""
    return _F64 if np.dtype(dtype) == _F64 else _F32


def canonical(words, dtype):
    """``std::generate_canonical<T, digits>`` of one 64-bit draw each: T(draw) / 2**64, kept
    below 1."""
    t = _math_dtype(dtype).type
    u = words.astype(t) * t(2.0 ** -64)
    return np.minimum(u, np.nextafter(t(1), t(0)))


def _chunks(n):
    for start in range(0, n, CHUNK):
        yield start, min(n, start + CHUNK)


#: the largest 64-bit word whose conversion to T stays below 2**64 (T(word) of any larger word
#: rounds to 2**64, where ``canonical`` returns the largest value below 1 instead: T(this) / 2**64)
_TOP_WORD = {_F32: U64((1 << 64) - (1 << 40)), _F64: U64((1 << 64) - (1 << 11))}


def uniform(engine, n, dtype, low, high):
    """``n`` values of ``std::uniform_real_distribution<T>(low, high)`` (low, high: float32)."""
    t = _math_dtype(dtype).type
    lo, hi = t(np.float32(low)), t(np.float32(high))
    span = t(hi - lo)
    out = np.empty(n, t)
    chunks = list(_chunks(n))
    for (a, b), words in zip(chunks, _words_ahead(engine, [b - a for a, b in chunks])):
        uniform_from_words(words, t, lo, span, out[a:b])
    return out


#: A draw of at least this many words fetches the next chunk's words in a helper thread while
#: this one converts the last (MT64's draw lets go of the GIL): the same words in the same
#: order, drawn by one thread at a time. vgg11's 123.6 M uniform values: the draw (~0.6 s) runs
#: beside the conversion (~0.9 s) on a second core.
AHEAD_MIN = 8 * CHUNK
_HELPER = [None, None]  # [the helper thread's executor, the process it was made in]


def _helper():
    """A one-thread executor of this process (a forked child makes its own), or None."""
    import os

    pool, pid = _HELPER
    if pool is None or pid != os.getpid():
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(1, thread_name_prefix="gradrepl-random")
        _HELPER[:] = [pool, os.getpid()]
    return pool


def _words_ahead(engine, sizes):
    """The words of each of ``sizes`` in turn, each next one drawn while the last is used (in
    this thread where threads cannot start, e.g. under ``--safe``'s task limit)."""
    draw = engine.draw
    if sum(sizes) < AHEAD_MIN or len(sizes) < 2:
        for n in sizes:
            yield draw(n)
        return
    try:
        pending = _helper().submit(draw, sizes[0])
    except RuntimeError:  # (can't start a thread)
        for n in sizes:
            yield draw(n)
        return
    try:
        for i in range(len(sizes)):
            words = pending.result()
            pending = None
            if i + 1 < len(sizes):
                pending = _helper().submit(draw, sizes[i + 1])
            yield words
    finally:
        if pending is not None:  # (the caller stopped early: never two draws at once)
            pending.result()


def uniform_from_words(words, t, lo, span, out):
    """``canonical(words) * span + lo`` in ``t`` into ``out`` (``words`` is overwritten).

    Fast and the same bits: T(word) / 2**64 is exact (a power-of-two scale of a normal value),
    so ``canonical * span`` rounds the same real number as ``T(word) * (span / 2**64)`` whenever
    ``span / 2**64`` is itself exact; ``canonical``'s cut below 1 is a cut of the words at
    ``_TOP_WORD``. One pass converts and scales, one adds ``low`` (none when adding it changes
    nothing: ``low`` is 0 and no product is -0)."""
    t = np.dtype(t).type
    scale = t(span * t(2.0 ** -64))
    if scale * t(2.0 ** 64) != span:  # (a span below 2**-62: scaled, it would lose bits)
        np.multiply(canonical(words, t), span, out=out)
        out += lo
        return out
    np.minimum(words, _TOP_WORD[np.dtype(t)], out=words)
    np.multiply(words, scale, out=out, dtype=t, casting="unsafe")
    if lo != 0 or np.signbit(scale):
        out += lo
    return out


def _log(t):
    """The C library's ``log`` (what ``std::normal_distribution`` calls) for arrays of ``t``."""
    from ..engine.ops import _kernels

    if t == np.float32:
        return _kernels.libm("log", np.log)
    run = _kernels.libm64("log", np.log)
    if _numpy_log_is_libm():
        return run
    step = _kernels.LIBM_LIMIT          # the C library's log a block at a time

    def blocks(x):
        if x.size <= step:
            return run(x)
        return np.concatenate([run(x[i:i + step]) for i in range(0, x.size, step)])
    return blocks


_NUMPY_LOG_IS_LIBM = None


def _numpy_log_is_libm() -> bool:
    """Whether numpy's float64 ``log`` gives the C library's bits here (on large arrays the
    engine's ``libm64`` hands over to numpy). numpy's AVX-512 build has its own log (0.3% of
    values an ulp from glibc's: a float64 ``paddle.normal`` of 300,001 values differed from real
    Paddle 3.3.1's on the AMD EPYC); its AVX2 build calls the C library. Probed once."""
    global _NUMPY_LOG_IS_LIBM
    if _NUMPY_LOG_IS_LIBM is None:
        from ..engine.ops import _kernels

        probe = np.linspace(1e-6, 1.0, 4096)
        run = _kernels.libm64("log", np.log)
        step = _kernels.LIBM_LIMIT
        want = np.concatenate([run(probe[i:i + step]) for i in range(0, probe.size, step)])
        _NUMPY_LOG_IS_LIBM = bool(np.array_equal(np.log(probe), want))
    return _NUMPY_LOG_IS_LIBM


def _polar_pairs(engine, pairs, t):
    """``pairs`` accepted (x, y) of the polar method and their multipliers, drawing exactly the
    words the sequential loop draws (rejected pairs included)."""
    xs, ys = [np.empty(0, t)], [np.empty(0, t)]
    while pairs:
        u = canonical(engine.draw(2 * pairs), t).reshape(pairs, 2)
        x = u[:, 0] * t(2) - t(1)
        y = u[:, 1] * t(2) - t(1)
        r2 = x * x + y * y
        keep = (r2 <= 1) & (r2 != 0)
        xs.append(x[keep])
        ys.append(y[keep])
        pairs -= int(keep.sum())
    x, y = np.concatenate(xs), np.concatenate(ys)
    r2 = x * x + y * y
    with np.errstate(all="ignore"):
        mult = np.sqrt(t(-2) * _log(t)(r2) / r2)
    return x, y, mult


def normal(engine, n, dtype, mean, std):
    """``n`` values of one ``std::normal_distribution<T>(mean, std)`` (mean, std: float32)."""
    t = _math_dtype(dtype).type
    mu, sigma = t(np.float32(mean)), t(np.float32(std))
    out = np.empty(n, t)
    pending = None            # the saved x*m of a chunk that ended on an odd count
    for a, b in _chunks(n):
        k = b - a
        pos = a
        if pending is not None:
            out[pos] = pending
            pos += 1
            k -= 1
            pending = None
        pairs = -(-k // 2)
        x, y, m = _polar_pairs(engine, pairs, t)
        vals = np.empty(2 * pairs, t)
        vals[0::2] = y * m
        vals[1::2] = x * m
        out[pos:b] = vals[:k]
        if k % 2:
            pending = vals[-1]
    out *= sigma
    out += mu
    return out


def _mul128(u, r):
    """High and low 64 bits of ``u * r`` (uint64 arrays, or r a number below 2**64)."""
    m32, s32 = U64(0xFFFFFFFF), U64(32)
    r = np.asarray(r, U64)
    rh, rl = r >> s32, r & m32
    uh, ul = u >> s32, u & m32
    ll, lh, hl, hh = ul * rl, ul * rh, uh * rl, uh * rh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    low = (ll & m32) | (mid << s32)
    high = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    return high, low


def _int_lemire(words, span):
    """libstdc++'s ``uniform_int_distribution`` (GCC 11 and later, 64-bit engine): Lemire's
    nearly divisionless method; (keep, value in [0, span)) per draw."""
    span = np.asarray(span, U64)
    high, low = _mul128(words, span)
    with np.errstate(over="ignore"):
        threshold = (U64(0) - span) % span
    return low >= threshold, high


def _int_divide(words, span):
    """libstdc++'s older ``uniform_int_distribution``: divide by ``(2**64 - 1) // span`` after
    rejecting draws at or past ``span * scaling``."""
    span = np.asarray(span, U64)
    scaling = U64(_MASK64) // span
    return words < span * scaling, words // scaling


INT_METHODS = {"lemire": _int_lemire, "divide": _int_divide}


def integers(engine, n, low, high, method="lemire"):
    """``n`` values of ``std::uniform_int_distribution(low, high - 1)`` as int64."""
    span = int(high) - int(low)
    fn = INT_METHODS[method]
    parts, need = [], int(n)
    while need:
        keep, vals = fn(engine.draw(need), span)
        parts.append(vals[keep])
        need -= int(keep.sum())
    vals = np.concatenate(parts) if parts else np.empty(0, U64)
    return (vals.astype(np.int64) + np.int64(low)) if span < (1 << 63) else \
        np.array([int(v) + int(low) for v in vals], np.int64)


def _draw_ints(engine, spans, method):
    """One ``uniform_int_distribution(0, span - 1)`` value per span, in order, each drawing
    until accepted (a rejection, about span / 2**64 likely, shifts the draws after it)."""
    fn = INT_METHODS[method]
    out, k = [], 0
    while k < len(spans):
        saved = engine.state
        words = engine.draw(len(spans) - k)
        keep, vals = fn(words, np.asarray(spans[k:], U64))
        bad = np.flatnonzero(~keep)
        j = int(bad[0]) if bad.size else len(words)
        out.extend(vals[:j].tolist())
        if bad.size:                      # span k + j redraws: rewind to just after word j
            engine.state = saved
            engine.draw(j + 1)
        k += j
    return out


def shuffle(engine, arr, method="lemire"):
    """``std::shuffle`` in place (libstdc++: two swap positions from one draw when ``n * n``
    fits the engine's range)."""
    n = len(arr)
    if n < 2:
        return arr
    first = 2 if n % 2 == 0 else 1
    spans = [2] if n % 2 == 0 else []
    spans += [(i + 1) * (i + 2) for i in range(first, n, 2)]
    draws = _draw_ints(engine, spans, method)
    if n % 2 == 0:
        z = draws.pop(0)
        arr[1], arr[z] = arr[z], arr[1]
    for i, x in zip(range(first, n, 2), draws):
        p1, p2 = divmod(x, i + 2)
        arr[i], arr[p1] = arr[p1], arr[i]
        arr[i + 1], arr[p2] = arr[p2], arr[i + 1]
    return arr


# ------------------------------------------------------------------------------ truncated normal
def _erfinv_float(x, t):
    """Paddle's ``Erfinv<T>`` (Giles' rational approximation), with C++'s promotions for T."""
    # coefficient tables of the central and the two tail approximations (numerator, denominator)
    central = ((1.1975323115670912564578e0, 4.7072688112383978012285e1, 6.9706266534389598238465e2,
                4.8548868893843886794648e3, 1.6235862515167575384252e4, 2.3782041382114385731252e4,
                1.1819493347062294404278e4, 8.8709406962545514830200e2),
               (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
                2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4,
                5.2264952788528545610e3))
    near = ((1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
             3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
             2.27238449892691845833e-2, 7.74545014278341407640e-4),
            (1.4142135623730950488016887e0, 2.9036514445419946173133295e0,
             2.3707661626024532365971225e0, 9.7547832001787427186894837e-1,
             2.0945065210512749128288442e-1, 2.1494160384252876777097297e-2,
             7.7441459065157709165577218e-4, 1.4859850019840355905497876e-9))
    far = ((6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
            2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
            2.71155556874348757815e-5, 2.01033439929228813265e-7),
           (1.414213562373095048801689e0, 8.482908416595164588112026e-1,
            1.936480946950659106176712e-1, 2.103693768272068968719679e-2,
            1.112800997078859844711555e-3, 2.611088405080593625138020e-5,
            2.010321207683943062279931e-7, 2.891024605872965461538222e-15))

    def poly(coef, r):
        acc = np.full_like(r, t(coef[7]))
        for c in coef[6::-1]:
            acc = acc * r + t(c)
        return acc

    x = np.asarray(x, t)
    ax = np.abs(x)
    out = np.empty_like(x)
    mid = ax <= 0.85
    xm = x[mid]
    r = (0.180625 - 0.25 * xm.astype(np.float64) * xm.astype(np.float64)).astype(t)
    out[mid] = xm * poly(central[0], r) / poly(central[1], r)
    tail = ~mid
    xt = x[tail]
    ln2 = np.float64(t(6.931471805599453094172321214581e-1))
    with np.errstate(all="ignore"):
        rd = np.sqrt(ln2 - _log(np.float64)(1.0 - np.abs(xt).astype(np.float64)))
    r = rd.astype(t)
    small = r <= 5.0
    res = np.empty_like(xt)
    rs = (r[small].astype(np.float64) - 1.6).astype(t)
    res[small] = poly(near[0], rs) / poly(near[1], rs)
    rb = (r[~small].astype(np.float64) - 5.0).astype(t)
    res[~small] = poly(far[0], rb) / poly(far[1], rb)
    out[tail] = np.where(xt < 0, -res, res)
    out[x == 1] = np.inf
    out[x == -1] = -np.inf
    return out


def truncated_normal(engine, n, dtype, mean, std, a=-2.0, b=2.0, kernels="3"):
    """Paddle's ``truncated_gaussian_random``: inverse-CDF samples of one uniform each over
    [FLT_MIN, 1) (float32 attributes, T arithmetic with C++'s promotions). Paddle 3 cuts at
    [a, b] and clamps to it; 2.x cuts at mean +- 2 std, unclamped."""
    t = _math_dtype(dtype).type
    mu, sigma = t(np.float32(mean)), t(np.float32(std))

    def cdf(v):
        return t((1.0 + math.erf(float(np.float64(v) / math.sqrt(2.0)))) / 2.0)

    if kernels == "3":
        lo, hi = t(np.float32(a)), t(np.float32(b))
        a_cdf, b_cdf = cdf(t((lo - mu) / sigma)), cdf(t((hi - mu) / sigma))
    else:
        a_cdf, b_cdf = cdf(t(-2.0)), cdf(t(2.0))
    u = uniform(engine, n, t, np.finfo(np.float32).tiny, 1.0)
    p = a_cdf + t(b_cdf - a_cdf) * u
    e = _erfinv_float(t(2) * p - t(1), t)
    ret = (math.sqrt(2.0) * e.astype(np.float64) * np.float64(sigma) + np.float64(mu)).astype(t)
    return np.clip(ret, lo, hi) if kernels == "3" else ret


#: per ``Profile.random_kernels`` (measured): libstdc++'s uniform_int_distribution in that
#: Paddle's build, whether float16 has uniform / gaussian kernels, ``paddle.uniform``'s default
#: (min, max), what randint does with a low / high beyond int32, and whether str() of a
#: GeneratorState shows the engine's address.
KERNELS = {"2.6": {"int_method": "divide", "half": False, "uniform_range": (-1.0, 1.0),
                   "int32_attr": "wrap", "state_address": False},
           "3": {"int_method": "lemire", "half": True, "uniform_range": (0, 1.0),
                 "int32_attr": "raise", "state_address": True}}
