"""Which kernel torch's oneDNN 3.12 runs for a float32 convolution's filter and bias gradients
on an ``avx512_core`` CPU, and how it splits their sums over threads.

The backward-weights pass sums, for each weight, one fused multiply-add chain over the
reduction (samples, then output rows, then columns, in order) and, for the bias, a plain sum in
the same order; oneDNN cuts that reduction into contiguous parts, one per thread of a "team"
(``balance211``), and adds the parts' sums in thread order. What decides the bits is therefore
only the kernel and where the cuts fall, worked out here as oneDNN decides them:

* ``jit:avx512_core`` (``jit_avx512_common_conv_bwd_weights_kernel_f32``) takes 1 to 3 input
  channels (a first convolution) or 16 and more (padded to blocks of 16), when its padding
  bounds hold (top/bottom padding at most half the dilated kernel height, left/right smaller
  than its width, kernel width at most 14) and a dilated height has stride 1. Its harness: a
  2-d convolution without height dilation and more than 9 output rows reduces over
  (sample, output row) pairs (``harness_2d_reduction``: the cut can fall inside a sample,
  the bias summed in the same kernel and cut alike); otherwise over samples (and depth planes
  of a 3-d one), the bias then by a separate reducer over samples (``cpu_reducer``'s balance).
  The team over the reduction: its ``balance`` cost model (memory traffic per thread, then a
  lower compute cost within 10 %), output- and input-channel blocks taking the other threads.
* ``jit:avx2`` (8-channel blocks) takes 4 to 15 input channels (and what the first one's
  bounds refuse), without dilation or depth padding: its weights and bias teams come from
  ``cpu_reducer``'s balance over the samples (the weights': and depth planes).
* anything else runs ``x64:gemm:jit`` (every dilated strided convolution, most 3-d ones with
  padding and 4 to 15 channels): per sample (a 3-d one: per output depth plane) im2col and
  oneDNN's own sgemm with beta 1, the samples split over the threads (``bwd_weights_balance``)
  and the threads' sums added in order. Its sgemm kernel sums each weight in one fused
  multiply-add chain over the plane's positions when there are 16 output channels or more and
  at most 384 positions (longer ones are cut into blocks not worked out here; fewer channels
  take its "small N" kernel or gemv, which sum along the positions in vector lanes), and
  oneDNN runs the samples on separate threads only when the positions per thread are fewer
  than 256 (else one sgemm parallel inside). Emulated there (``gemm_weights``); its bias
  gradient (an OpenMP SIMD reduction per output row, its lanes not worked out) is not.

Read from oneDNN's sources (``src/cpu/x64/jit_avx512_common_conv_kernel.cpp`` ``init_conf``,
``balance``; ``jit_avx512_common_convolution.cpp``; ``jit_avx2_conv_kernel_f32.cpp``;
``cpu_reducer.cpp``) and checked against real torch 2.13 with ``ONEDNN_VERBOSE=1`` on random
strided, padded and dilated shapes (tests/test_torch_conv_strided_grads.py). On other CPUs
oneDNN runs other kernels; ``_onednn_conv.isa`` keeps them on the general path.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ...engine import workers


class Plan(NamedTuple):
    """How the reduction is cut: ``rows_w``/``rows_b`` reduction units per sample (1: whole
    samples; the output depth or height: planes or rows), ``team_w``/``team_b`` threads sharing
    them (``balance211`` parts, summed in order); ``kernel`` as ONEDNN_VERBOSE names it."""
    kernel: str
    rows_w: int
    team_w: int
    rows_b: int
    team_b: int          # (0: the bias is not emulated, the caller's general path sums it)


def _up(a, b):
    return -(-a // b)


MIN_OH_REDUCE = 9          # jit_avx512_common_conv_bwd_weights_kernel_f32::min_oh_reduce
MAX_UR_W = 28


def reducer_team(nthr, job_size, njobs, reduction_size, max_buffer):
    """``reduce_balancer_t::balance``: threads per group sharing the reduction."""
    min_per_group = max(1, njobs // nthr)
    max_per_group = max(1, max_buffer // (nthr * job_size))
    groups = min(njobs // min_per_group, nthr)
    per_group = min(nthr // groups, reduction_size)
    bound = njobs * job_size * reduction_size
    for c in range(min_per_group, njobs):
        c_groups = min(njobs // c, nthr)
        c_per = min(nthr // c_groups, reduction_size)
        c_ub = _up(njobs, c_groups)
        if c_per > 1 and c_ub > max_per_group:
            continue
        cost = job_size * c_ub * (_up(reduction_size, c_per) + (c_per != 1))
        if cost < bound:
            per_group, bound = c_per, cost
    return per_group


def _geometry(x_shape, w_shape, out_shape, stride, pads_before, dilation):
    lift = 5 - len(x_shape)
    one = (1,) * lift
    zero = (0,) * lift
    g = dict(mb=x_shape[0], ic=x_shape[1], oc=w_shape[0], ndims=len(x_shape))
    g["id"], g["ih"], g["iw"] = one + tuple(x_shape[2:])
    g["od"], g["oh"], g["ow"] = one + tuple(out_shape[2:])
    g["kd"], g["kh"], g["kw"] = one + tuple(w_shape[2:])
    g["sd"], g["sh"], g["sw"] = one + tuple(stride)
    g["dd"], g["dh"], g["dw"] = zero + tuple(d - 1 for d in dilation)     # oneDNN's dilates
    g["fp"], g["tp"], g["lp"] = zero + tuple(pads_before)
    for k, d, o, i, s, p, name in (("kd", "dd", "od", "id", "sd", "fp", "bkp"),
                                   ("kh", "dh", "oh", "ih", "sh", "tp", "bp"),
                                   ("kw", "dw", "ow", "iw", "sw", "lp", "rp")):
        ext = (g[k] - 1) * (g[d] + 1) + 1
        g["e" + k] = ext
        g[name] = max(0, (g[o] - 1) * g[s] + ext - g[i] - g[p])
    return g


def _avx512_ok(g):
    if g["dd"] and g["sd"] != 1 or g["dh"] and (g["sh"] != 1 or g["ekh"] > g["ih"]):
        return False
    if g["ndims"] == 5 and g["dd"]:
        return False
    if g["ic"] < 16 and g["ic"] not in (1, 2, 3):
        return False                                     # a first convolution: 1 to 3
    half = g["ekh"] // 2
    if not (g["lp"] < g["ekw"] and g["rp"] < g["ekw"] and g["tp"] <= half and g["bp"] <= half
            and g["fp"] < g["ekd"] and g["bkp"] < g["ekd"]
            and (g["fp"] == 0 or g["kd"] < g["id"] + g["fp"])
            and g["lp"] <= MAX_UR_W and g["rp"] <= MAX_UR_W):
        return False
    transposed_hw = (g["ndims"] == 4 and 14 <= g["kw"] < 20 and g["ow"] == 1
                     and g["kw"] == g["iw"] and g["sw"] == g["sh"] == 1
                     and not (g["dh"] or g["dw"])
                     and not (g["lp"] or g["tp"] or g["rp"] or g["bp"]))
    return not transposed_hw and g["kw"] <= 14


def _avx512_balance(g, nthreads):
    """``jit_avx512_common_conv_bwd_weights_kernel_f32::balance`` (one group): the threads
    over the reduction, the output-channel blocks and the input-channel blocks."""
    first = g["ic"] < 16
    icb, nb_ic = (g["ic"], 1) if first else (16, _up(g["ic"], 16))
    ocb, nb_oc = 16, _up(g["oc"], 16)
    two_d = g["harness"] == "2d"
    oh = g["oh"]
    ih_r, oh_r = (g["ih"], oh) if two_d else (1, 1)
    ih_n, oh_n = (1, 1) if two_d else (g["ih"], oh)
    nthr_oh = max(1, oh_r // MIN_OH_REDUCE)
    mb = g["mb"]

    def mem(m, o, i):
        return (_up(mb * ih_r, m) * _up(nb_ic, i) * icb * ih_n * g["iw"] * g["id"]
                // g["sd"] // g["sh"] // g["sw"]
                + _up(mb * oh_r, m) * _up(nb_oc, o) * ocb * oh_n * g["ow"] * g["od"]
                + 8 * _up(nb_oc, o) * _up(nb_ic, i) * g["kh"] * g["kw"] * g["kd"] * icb * ocb)

    def comp(m, o, i):
        return _up(mb * oh_r, m) * _up(nb_oc, o) * _up(nb_ic, i)

    best = (1, 1, 1)
    best_mem = mem(*best)
    m_max = min(nthreads, mb * g["od"] * nthr_oh)
    splits = []
    for m in range(1, m_max + 1):
        par = nthreads // m
        for o in range(1, min(par, nb_oc) + 1):
            splits.append((m, o, min(par // o, nb_ic)))
    for s in splits:
        c = mem(*s)
        if c <= best_mem:
            best, best_mem = s, c
    best_comp = comp(*best)
    for s in splits:
        c, cm = comp(*s), mem(*s)
        if (c <= best_comp and cm < 1.1 * best_mem) or 4 * c <= 3 * best_comp:
            best, best_comp = s, c
    m, o, i = best
    if nthreads // 2 < m < nthreads:
        m = min(mb * g["od"] * nthr_oh, nthreads)
    return m, m * o * i, nb_oc


def _avx2_ok(g):
    if g["dd"] or g["dh"] or g["dw"]:
        return False
    return (g["tp"] < g["ekh"] and g["bp"] < g["ekh"] and g["lp"] < g["ekw"]
            and g["rp"] < g["ekw"] and g["fp"] == 0 and g["bkp"] == 0 and g["kw"] < 14
            and g["kh"] <= g["ih"] and g["tp"] < g["kh"] and g["kd"] <= g["id"])


def plan(x_shape, w_shape, out_shape, stride, pads_before, dilation, threads):
    """The backward-weights kernel's reduction cuts (``_plan``, kept per shape: a training step
    asks for the same ones every step)."""
    return _plan(*(tuple(int(v) for v in a) for a in (x_shape, w_shape, out_shape, stride,
                                                      pads_before, dilation)), int(threads))


@functools.lru_cache(maxsize=256)
def _plan(x_shape, w_shape, out_shape, stride, pads_before, dilation, threads):
    """The backward-weights kernel's reduction cuts for a float32 convolution without groups
    (1 to 3 spatial axes; ``dilation`` as torch gives it, 1 for none), or None where oneDNN runs
    a kernel not emulated here."""
    g = _geometry(x_shape, w_shape, out_shape, stride, pads_before, dilation)
    mb = g["mb"]
    if _avx512_ok(g):
        g["harness"] = ("2d" if g["ndims"] == 4 and not g["dh"] and g["oh"] > MIN_OH_REDUCE
                        else "3d" if g["ndims"] == 5 else "mb")
        team_w, nthr, nb_oc = _avx512_balance(g, threads)
        if g["harness"] == "2d":
            return Plan("jit:avx512_core", g["oh"], team_w, g["oh"], team_w)
        if g["harness"] == "3d":
            return Plan("jit:avx512_core", g["od"], team_w, g["od"], team_w)
        team_b = reducer_team(nthr, 16, nb_oc, mb, nthr * 3 * 5 * 5 * 16 * 16)
        return Plan("jit:avx512_core", 1, team_w, 1, team_b)
    if _avx2_ok(g):
        flat = g["ic"] == 3
        icb = g["ic"] if flat else 8
        nb_ic = 1 if flat else _up(g["ic"], 8)
        nb_oc = _up(g["oc"], 8)
        team_w = reducer_team(threads, g["kd"] * g["kh"] * g["kw"] * icb * 8, nb_ic * nb_oc,
                              mb * g["od"], 1 << 21)
        team_b = reducer_team(threads, 8, nb_oc, mb, 1 << 21)
        return Plan("jit:avx2", g["od"], team_w, 1, team_b)
    positions = g["oh"] * g["ow"]
    if g["oc"] >= 16 and positions <= GEMM_K and positions // threads < 256 and mb > 1:
        return Plan("x64:gemm:jit", g["od"], min(mb, threads), 1, 0)
    return None


GEMM_K = 384           # positions per plane up to which oneDNN's sgemm sums in one chain


#: Multiply-adds per step past which the chains' weights are shared among torch's thread count
#: of Python threads (numpy lets go of the GIL on arrays this large).
SHARE = 1 << 16


def fma_chains(a, b, bounds, replay=True):
    """One fused multiply-add chain from zero per ``(start, end)`` of ``bounds`` over the rows
    ``j`` of ``a`` (J, A) and ``b`` (J, B) (float32, or float64 holding float32 values):
    ``acc = float32(acc + a[j] (x) b[j])``, the exact product rounded once with the sum
    (numpy's BLAS where ``_fma_gemm`` checked it sums so; else replayed: all chains advance
    together, a numpy call a step); a shorter chain's last steps add products of zero rows
    (exact: a sum from +0 never becomes -0). (K, A, B) float32; None where the BLAS does not
    sum them and ``replay`` is False."""
    from .. import _capability

    k = len(bounds)
    length = max((hi - lo for lo, hi in bounds), default=0)
    if all(hi - lo == length and lo == i * length for i, (lo, hi) in enumerate(bounds)):
        a3 = a[:k * length].reshape(k, length, -1).transpose(1, 0, 2)       # views
        b3 = b[:k * length].reshape(k, length, -1).transpose(1, 0, 2)
    else:
        rows = np.full((length, k), len(a))
        for i, (lo, hi) in enumerate(bounds):
            rows[:hi - lo, i] = np.arange(lo, hi)
        a3 = np.concatenate([a, np.zeros((1, a.shape[1]))])[rows]
        b3 = np.concatenate([b, np.zeros((1, b.shape[1]))])[rows]
    if k and length:   # the same chains by numpy's BLAS where it is checked to sum so
        from ._fma_gemm import chains

        got = chains(a3.transpose(1, 2, 0), b3.transpose(1, 0, 2))
        if got is not None:
            return got
    if not replay:
        return None
    a3, b3 = a3.astype(np.float64, copy=False), b3.astype(np.float64, copy=False)
    acc = np.zeros((k, a.shape[1], b.shape[1]), np.float32)

    def run(cols):
        acc_c, b3_c = acc[:, :, cols], b3[:, :, cols]
        tmp = np.empty(acc_c.shape)
        mul, add = np.multiply, np.add
        for t in range(length):
            mul(a3[t, :, :, None], b3_c[t, :, None, :], out=tmp)
            add(acc_c, tmp, out=acc_c, casting="unsafe")

    teams = min(_capability.threads(), b.shape[1]) if acc.size >= SHARE else 1
    workers.run(lambda part: run(slice(*part)), workers.split(b.shape[1], teams))
    return acc


def _columns(x, ksize, stride, pads, dilation, outs):
    """im2col of every sample in float64: (N, positions, C * K) in oneDNN's row order."""
    n, c = x.shape[:2]
    xp = np.zeros((n, c) + tuple(s + pb + pa for s, (pb, pa) in zip(x.shape[2:], pads)))
    xp[(slice(None), slice(None)) + tuple(slice(pb, pb + s)
                                          for s, (pb, _) in zip(x.shape[2:], pads))] = x
    cols = np.empty((n,) + tuple(outs) + (c,) + tuple(ksize))
    for k3 in np.ndindex(*ksize):
        win = tuple(slice(k * d, k * d + st * (m - 1) + 1, st)
                    for k, d, st, m in zip(k3, dilation, stride, outs))
        cols[(Ellipsis, slice(None)) + k3] = np.moveaxis(
            xp[(slice(None), slice(None)) + win], 1, -1)
    return cols.reshape(n, math.prod(outs), c * math.prod(ksize))


def gemm_weights(x, g, ksize, stride, pads, dilation, cuts):
    """The filter gradient as ``x64:gemm:jit`` sums it (module docstring): one fused
    multiply-add chain from zero per weight and plane (all planes at once, a numpy call a
    position), the planes of a thread's samples added in order, the threads' sums in order.
    ``x`` (N, C, *S), ``g`` (N, O, *P) float32; ``pads`` (before, after) per axis."""
    from ._onednn_conv import _parts

    n, o = g.shape[:2]
    outs = g.shape[2:]
    planes = n * cuts.rows_w
    per = math.prod(outs) // cuts.rows_w
    cols = _columns(x, ksize, stride, pads, dilation, outs).reshape(planes * per, -1)
    g64 = np.moveaxis(g.reshape(n, o, -1), 1, 2).reshape(planes * per, o).astype(np.float64)
    acc = fma_chains(g64, cols, [(u * per, (u + 1) * per) for u in range(planes)])
    total = None
    for a, b in _parts(n, cuts.team_w):
        part = acc[a * cuts.rows_w]
        for u in range(a * cuts.rows_w + 1, b * cuts.rows_w):
            part = part + acc[u]
        total = part if total is None else total + part
    return total.reshape((o, x.shape[1]) + tuple(ksize))

