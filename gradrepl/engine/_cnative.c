/* gradrepl's optional native kernels: compiled loops that compute what the numpy replays of
 * torch's vectorised CPU kernels compute, bit for bit (gradrepl/engine/_native.py loads this
 * module; every caller keeps its numpy replay, which runs where this was not built).
 *
 * Built by setup.py with -O2 -ffp-contract=off and no fast-math: every a * b + c below is two
 * roundings unless written fmaf/fma, which is one (the kernels replayed fuse exactly there).
 * Each function takes C-contiguous buffers (numpy arrays) and returns 0 when it computed the
 * result, 1 when an input lies outside what it handles (a nan, a value outside a replay's
 * checked range): the caller then runs the numpy replay on the whole input.
 *
 * The float32 kernels here are torch 2.13's softmax / log_softmax kernels
 * (aten/src/ATen/native/cpu/SoftMaxKernel.cpp) with SLEEF's expf_u10 and logf_u10 as the
 * AVX-512 build computes them, written lane by lane: gradrepl/torch/_softmax_kernels.py
 * (vexp, vlog, vsum, log_softmax, ...) says what each step is and why. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must round to float (FLT_EVAL_METHOD 0): the numpy replays run instead"
#endif

/* ------------------------------------------------------------------ bits */
static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline float pow2i(int32_t q) { return u2f((uint32_t)(q + 0x7f) << 23); }

/* ------------------------------------------------------------------ SLEEF expf_u10 */
/* constants: the float32 values the replay uses (hex, exact) */
#define R_LN2f 0x1.715476p+0f
#define L2Uf 0x1.62e4p-1f
#define L2Lf 0x1.7f7d1cp-20f
#define EP0 0x1.a057b4p-13f
#define EP1 0x1.6d2d92p-10f
#define EP2 0x1.11114cp-7f
#define EP3 0x1.5554f4p-5f
#define EP4 0x1.555556p-3f
#define EP5 0x1.0p-1f

/* d not nan: the replay's _vexp_each (every fma one rounding) */
static inline float vexpf1(float d)
{
    if (d < -104.0f) return 0.0f;
    if (d > 100.0f) return INFINITY;
    float qf = rintf(d * R_LN2f);          /* in [-150, 145]: an exact int32 */
    int32_t q = (int32_t)qf;
    float s = fmaf(qf, -L2Uf, d);
    s = fmaf(qf, -L2Lf, s);
    float u = EP0;
    u = fmaf(u, s, EP1);
    u = fmaf(u, s, EP2);
    u = fmaf(u, s, EP3);
    u = fmaf(u, s, EP4);
    u = fmaf(u, s, EP5);
    u = 1.0f + fmaf(s * s, u, s);
    int32_t h = q >> 1;
    return (u * pow2i(h)) * pow2i(q - h);
}

/* ------------------------------------------------------------------ SLEEF logf_u10 */
#define LN2_HIf 0x1.62e43p-1f
#define LN2_LOf (-0x1.05c61p-29f)
#define LP0 0x1.35feb8p-2f
#define LP1 0x1.993394p-2f
#define LP2 0x1.5555b4p-1f
#define R075f 0x1.555556p+0f         /* float32(1 / 0.75) */
#define VLOG_HI 0x1p127f

/* d positive finite below 2**127: the replay's _vlog_each */
static inline float vlogf1(float d)
{
    int ex;
    frexpf(d * R075f, &ex);
    float e = (float)(ex - 1);                                   /* getexp */
    int ex2;
    float m = frexpf(d, &ex2) * 2.0f;                            /* [1, 2) */
    if (m >= 1.5f) m = m * 0.5f;                                 /* getmant [0.75, 1.5) */
    float sx = LN2_HIf * e;
    float sy = fmaf(LN2_LOf, e, fmaf(LN2_HIf, e, -sx));
    float nx = -1.0f + m, v = nx - -1.0f;
    float ny = (-1.0f - (nx - v)) + (m - v);
    float dx = 1.0f + m;
    v = dx - 1.0f;
    float dy = (1.0f - (dx - v)) + (m - v);
    float t = 1.0f / dx;
    float qx = nx * t;
    float u = fmaf(t, nx, -qx);
    float qy = fmaf(-dy, t, fmaf(-dx, t, 1.0f));
    qy = fmaf(qx, qy, fmaf(ny, t, u));
    float x2 = qx * qx;
    float tt = fmaf(fmaf(LP0, x2, LP1), x2, LP2);
    float ax = qx * 2.0f, ay = qy * 2.0f;
    float rx = sx + ax;
    float ry = (((sx - rx) + ax) + sy) + ay;
    float w = (x2 * qx) * tt;
    float r2x = rx + w;
    float r2y = ((rx - r2x) + w) + ry;
    return r2x + r2y;
}

static inline int vlog_ok(float d) { return d > 0.0f && d < VLOG_HI; }   /* (nan: false) */

/* ------------------------------------------------------------------ torch's row sum */
/* reduce_all with +: L-lane vectors (the last partial one added into the first lanes), the
 * lanes folded pairwise L/2, ..., 1; a row shorter than L added in order */
#define MAXL 64
static inline float vsumf(const float *x, Py_ssize_t n, int L)
{
    if (n < L) {
        float acc = x[0];
        for (Py_ssize_t k = 1; k < n; k++) acc = acc + x[k];
        return acc;
    }
    float acc[MAXL];
    Py_ssize_t m = n - n % L;
    for (int j = 0; j < L; j++) acc[j] = x[j];
    for (Py_ssize_t i = L; i < m; i += L)
        for (int j = 0; j < L; j++) acc[j] = acc[j] + x[i + j];
    for (Py_ssize_t j = 0; j < n - m; j++) acc[j] = acc[j] + x[m + j];
    for (int w = L / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; j++) acc[j] = acc[j] + acc[j + w];
    return acc[0];
}

/* ------------------------------------------------------------------ argument plumbing */
typedef struct { Py_buffer b[4]; int n; } Bufs;

static void release(Bufs *bs)
{
    for (int i = 0; i < bs->n; i++) PyBuffer_Release(&bs->b[i]);
    bs->n = 0;
}

/* the first nbuf arguments as C-contiguous buffers of itemsize bytes (the last one written,
 * when last_writable), all of one length; then nint Py_ssize_t arguments */
static int parse(PyObject *const *args, Py_ssize_t nargs, int nbuf, int last_writable,
                 Py_ssize_t itemsize, int nint, Py_ssize_t *ints, Bufs *bs, const char *name)
{
    bs->n = 0;
    if (nargs != nbuf + nint) {
        PyErr_Format(PyExc_TypeError, "%s takes %d arguments", name, nbuf + nint);
        return -1;
    }
    for (int i = 0; i < nbuf; i++) {
        int flags = PyBUF_C_CONTIGUOUS | ((last_writable && i == nbuf - 1) ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(args[i], &bs->b[i], flags) < 0) { release(bs); return -1; }
        bs->n++;
        if (bs->b[i].itemsize != itemsize || bs->b[i].len != bs->b[0].len) {
            release(bs);
            PyErr_Format(PyExc_ValueError, "%s: buffers of one length and item size %zd", name,
                         itemsize);
            return -1;
        }
    }
    for (int i = 0; i < nint; i++) {
        ints[i] = PyLong_AsSsize_t(args[nbuf + i]);
        if (ints[i] == -1 && PyErr_Occurred()) { release(bs); return -1; }
    }
    return 0;
}

/* rows of n values in a buffer of len bytes, lanes L: checked */
static int rows_of(Bufs *bs, Py_ssize_t n, Py_ssize_t L, Py_ssize_t itemsize, Py_ssize_t *rows,
                   const char *name)
{
    Py_ssize_t count = bs->b[0].len / itemsize;
    if (n <= 0 || count % n || L < 1 || L > MAXL || (L & (L - 1))) {
        release(bs);
        PyErr_Format(PyExc_ValueError, "%s: bad row length or lanes", name);
        return -1;
    }
    *rows = count / n;
    return 0;
}

/* ------------------------------------------------------------------ exported: elementwise */
/* expf_u10(x, out) -> 0 (a nan gives itself, quieted, as the replay does) */
static PyObject *py_expf_u10(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    if (parse(args, nargs, 2, 1, 4, 0, NULL, &bs, "expf_u10") < 0) return NULL;
    const float *x = bs.b[0].buf;
    float *out = bs.b[1].buf;
    Py_ssize_t count = bs.b[0].len / 4;
    for (Py_ssize_t i = 0; i < count; i++) {
        float d = x[i];
        out[i] = isnan(d) ? u2f(f2u(d) | 0x400000u) : vexpf1(d);
    }
    release(&bs);
    return PyLong_FromLong(0);
}

/* logf_u10(x, out) -> 0, or 1 if a value is not positive finite below 2**127 */
static PyObject *py_logf_u10(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    if (parse(args, nargs, 2, 1, 4, 0, NULL, &bs, "logf_u10") < 0) return NULL;
    const float *x = bs.b[0].buf;
    float *out = bs.b[1].buf;
    Py_ssize_t count = bs.b[0].len / 4;
    long status = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!vlog_ok(x[i])) { status = 1; break; }
        out[i] = vlogf1(x[i]);
    }
    release(&bs);
    return PyLong_FromLong(status);
}

/* ------------------------------------------------------------------ exported: row kernels */
/* x (rows, n) float32 -> out: log_softmax along the rows (lanes L); 1 on a nan */
static PyObject *py_log_softmax_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    Py_ssize_t p[2], rows;
    if (parse(args, nargs, 2, 1, 4, 2, p, &bs, "log_softmax_f32") < 0) return NULL;
    Py_ssize_t n = p[0];
    int L = (int)p[1];
    if (rows_of(&bs, n, p[1], 4, &rows, "log_softmax_f32") < 0) return NULL;
    const float *x = bs.b[0].buf;
    float *out = bs.b[1].buf;
    long status = 0;
    for (Py_ssize_t r = 0; r < rows && !status; r++, x += n, out += n) {
        float mx = x[0];
        for (Py_ssize_t k = 1; k < n; k++)
            if (x[k] > mx) mx = x[k];
        for (Py_ssize_t k = 0; k < n; k++) {      /* out holds x - max, then exp of it */
            out[k] = x[k] - mx;
            if (isnan(out[k])) { status = 1; break; }
        }
        if (status) break;
        /* the exponentials are needed only for their sum (vsumf's order, made here) */
        float ls, acc[MAXL];
        if (n < L) {
            ls = vexpf1(out[0]);
            for (Py_ssize_t k = 1; k < n; k++) ls = ls + vexpf1(out[k]);
        } else {
            Py_ssize_t m = n - n % L;
            for (int j = 0; j < L; j++) acc[j] = vexpf1(out[j]);
            for (Py_ssize_t i = L; i < m; i += L)
                for (int j = 0; j < L; j++) acc[j] = acc[j] + vexpf1(out[i + j]);
            for (Py_ssize_t j = 0; j < n - m; j++) acc[j] = acc[j] + vexpf1(out[m + j]);
            for (int w = L / 2; w >= 1; w /= 2)
                for (int j = 0; j < w; j++) acc[j] = acc[j] + acc[j + w];
            ls = acc[0];
        }
        if (!vlog_ok(ls)) { status = 1; break; }
        ls = vlogf1(ls);
        for (Py_ssize_t k = 0; k < n; k++) out[k] = out[k] - ls;
    }
    release(&bs);
    return PyLong_FromLong(status);
}

/* y, g (rows, n) float32 -> out = g - exp(y) * sum(g), fused; 1 on a nan or a sum not finite */
static PyObject *py_log_softmax_backward_f32(PyObject *self, PyObject *const *args,
                                             Py_ssize_t nargs)
{
    Bufs bs;
    Py_ssize_t p[2], rows;
    if (parse(args, nargs, 3, 1, 4, 2, p, &bs, "log_softmax_backward_f32") < 0) return NULL;
    Py_ssize_t n = p[0];
    int L = (int)p[1];
    if (rows_of(&bs, n, p[1], 4, &rows, "log_softmax_backward_f32") < 0) return NULL;
    const float *y = bs.b[0].buf, *g = bs.b[1].buf;
    float *out = bs.b[2].buf;
    long status = 0;
    for (Py_ssize_t r = 0; r < rows; r++, y += n, g += n, out += n) {
        float s = vsumf(g, n, L);
        if (!isfinite(s)) { status = 1; break; }
        for (Py_ssize_t k = 0; k < n; k++) {
            if (isnan(y[k]) || isnan(g[k])) { status = 1; break; }
            out[k] = fmaf(-vexpf1(y[k]), s, g[k]);
        }
        if (status) break;
    }
    release(&bs);
    return PyLong_FromLong(status);
}

/* x (rows, n) float32 -> out: softmax, e * (1 / sum); 1 on a nan */
static PyObject *py_softmax_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    Py_ssize_t p[2], rows;
    if (parse(args, nargs, 2, 1, 4, 2, p, &bs, "softmax_f32") < 0) return NULL;
    Py_ssize_t n = p[0];
    int L = (int)p[1];
    if (rows_of(&bs, n, p[1], 4, &rows, "softmax_f32") < 0) return NULL;
    const float *x = bs.b[0].buf;
    float *out = bs.b[1].buf;
    long status = 0;
    for (Py_ssize_t r = 0; r < rows && !status; r++, x += n, out += n) {
        float mx = x[0];
        for (Py_ssize_t k = 1; k < n; k++)
            if (x[k] > mx) mx = x[k];
        for (Py_ssize_t k = 0; k < n; k++) {
            float sh = x[k] - mx;
            if (isnan(sh)) { status = 1; break; }
            out[k] = vexpf1(sh);
        }
        if (status) break;
        float inv = 1.0f / vsumf(out, n, L);
        for (Py_ssize_t k = 0; k < n; k++) out[k] = out[k] * inv;
    }
    release(&bs);
    return PyLong_FromLong(status);
}

/* y, g (rows, n) float32 -> out = (g - sum(g * y)) * y; 1 on a nan */
static PyObject *py_softmax_backward_f32(PyObject *self, PyObject *const *args,
                                         Py_ssize_t nargs)
{
    Bufs bs;
    Py_ssize_t p[2], rows;
    if (parse(args, nargs, 3, 1, 4, 2, p, &bs, "softmax_backward_f32") < 0) return NULL;
    Py_ssize_t n = p[0];
    int L = (int)p[1];
    if (rows_of(&bs, n, p[1], 4, &rows, "softmax_backward_f32") < 0) return NULL;
    const float *y = bs.b[0].buf, *g = bs.b[1].buf;
    float *out = bs.b[2].buf;
    long status = 0;
    for (Py_ssize_t r = 0; r < rows; r++, y += n, g += n, out += n) {
        for (Py_ssize_t k = 0; k < n; k++) out[k] = g[k] * y[k];   /* (out: scratch) */
        float s = vsumf(out, n, L);
        if (isnan(s)) { status = 1; break; }
        for (Py_ssize_t k = 0; k < n; k++) out[k] = (g[k] - s) * y[k];
    }
    release(&bs);
    return PyLong_FromLong(status);
}

/* ------------------------------------------------------------------ exported: scatter-add */
/* add_rows(out, idx, g) -> 0: out[idx[k], ...] += g[k, ...] for k in order, element by element
 * (np.add.at(out, (idx,), g) of an int64 index on the first dim: each position's contributions
 * added in index order, as torch's serial index_put_ with accumulate=True); out float32 or
 * float64 (R, inner), g (n, inner) of out's dtype, idx (n,) int64; a negative index counts
 * from the end. 1 (nothing changed) on an index out of range or a nan in g (np.add.at then
 * raises its error, or keeps its nan payloads). */
static PyObject *py_add_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer o, ix, g;
    if (nargs != 3) { PyErr_SetString(PyExc_TypeError, "add_rows takes 3 arguments"); return NULL; }
    if (PyObject_GetBuffer(args[0], &o, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &ix, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&o); return NULL;
    }
    if (PyObject_GetBuffer(args[2], &g, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&o); PyBuffer_Release(&ix); return NULL;
    }
    long status = 0;
    Py_ssize_t isz = o.itemsize, n = ix.len / 8;
    Py_ssize_t R = o.ndim >= 1 ? o.shape[0] : 0;
    char fo = o.format ? o.format[strlen(o.format) - 1] : 0;
    char fg = g.format ? g.format[strlen(g.format) - 1] : 0;
    if (ix.itemsize != 8 || (isz != 4 && isz != 8) || g.itemsize != isz || fo != fg
        || !(fo == 'f' || fo == 'd') || R <= 0 || o.len % R) {
        PyErr_SetString(PyExc_ValueError, "add_rows: float32/float64 out and g, int64 index");
        goto fail;
    }
    Py_ssize_t inner = o.len / isz / R;
    if (g.len != n * inner * isz) {
        PyErr_SetString(PyExc_ValueError, "add_rows: g is not (len(idx), *out.shape[1:])");
        goto fail;
    }
    const int64_t *idx = ix.buf;
    for (Py_ssize_t k = 0; k < n && !status; k++)
        if (idx[k] < -R || idx[k] >= R) status = 1;
    if (isz == 4) {
        const float *gv = g.buf;
        for (Py_ssize_t k = 0; k < n * inner && !status; k++)
            if (isnan(gv[k])) status = 1;
        if (!status) {
            float *out = o.buf;
            for (Py_ssize_t k = 0; k < n; k++) {
                float *row = out + (idx[k] < 0 ? idx[k] + R : idx[k]) * inner;
                const float *src = gv + k * inner;
                for (Py_ssize_t j = 0; j < inner; j++) row[j] = row[j] + src[j];
            }
        }
    } else {
        const double *gv = g.buf;
        for (Py_ssize_t k = 0; k < n * inner && !status; k++)
            if (isnan(gv[k])) status = 1;
        if (!status) {
            double *out = o.buf;
            for (Py_ssize_t k = 0; k < n; k++) {
                double *row = out + (idx[k] < 0 ? idx[k] + R : idx[k]) * inner;
                const double *src = gv + k * inner;
                for (Py_ssize_t j = 0; j < inner; j++) row[j] = row[j] + src[j];
            }
        }
    }
    PyBuffer_Release(&o); PyBuffer_Release(&ix); PyBuffer_Release(&g);
    return PyLong_FromLong(status);
fail:
    PyBuffer_Release(&o); PyBuffer_Release(&ix); PyBuffer_Release(&g);
    return NULL;
}

/* ------------------------------------------------------------------ module */
static PyMethodDef methods[] = {
    {"expf_u10", (PyCFunction)(void (*)(void))py_expf_u10, METH_FASTCALL,
     "expf_u10(x, out) -> 0: SLEEF's float32 exp (1 ulp) of each value, as torch's AVX-512 build"},
    {"logf_u10", (PyCFunction)(void (*)(void))py_logf_u10, METH_FASTCALL,
     "logf_u10(x, out) -> 0, or 1 (not computed) if a value is not positive finite below 2**127"},
    {"log_softmax_f32", (PyCFunction)(void (*)(void))py_log_softmax_f32, METH_FASTCALL,
     "log_softmax_f32(x, out, n, lanes) -> 0, or 1 (not finished) on a nan"},
    {"log_softmax_backward_f32", (PyCFunction)(void (*)(void))py_log_softmax_backward_f32,
     METH_FASTCALL, "log_softmax_backward_f32(y, g, out, n, lanes) -> 0, or 1"},
    {"softmax_f32", (PyCFunction)(void (*)(void))py_softmax_f32, METH_FASTCALL,
     "softmax_f32(x, out, n, lanes) -> 0, or 1 (not finished) on a nan"},
    {"softmax_backward_f32", (PyCFunction)(void (*)(void))py_softmax_backward_f32,
     METH_FASTCALL, "softmax_backward_f32(y, g, out, n, lanes) -> 0, or 1"},
    {"add_rows", (PyCFunction)(void (*)(void))py_add_rows, METH_FASTCALL,
     "add_rows(out, idx, g) -> 0, or 1 (nothing done): np.add.at(out, (idx,), g), in order"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cnative",
    "gradrepl's optional native kernels (see gradrepl/engine/_native.py)", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cnative(void) { return PyModule_Create(&module); }
