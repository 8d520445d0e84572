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

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

/* ------------------------------------------------------------------ bits */
ALWAYS_INLINE uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
ALWAYS_INLINE float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
ALWAYS_INLINE float pow2i(int32_t q) { return u2f((uint32_t)(q + 0x7f) << 23); }

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
ALWAYS_INLINE float vexpf1(float d)
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
ALWAYS_INLINE float vlogf1(float d)
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

ALWAYS_INLINE int vlog_ok(float d) { return d > 0.0f && d < VLOG_HI; }   /* (nan: false) */

/* ------------------------------------------------------------------ torch's row sum */
/* reduce_all with +: L-lane vectors (the last partial one added into the first lanes), the
 * lanes folded pairwise L/2, ..., 1; a row shorter than L added in order */
#define MAXL 64
ALWAYS_INLINE float vsumf(const float *x, Py_ssize_t n, int L)
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

/* ------------------------------------------------------------------ the float32 kernels' loops */
/* Each loop is compiled twice: as plain C (fmaf and rintf calls into the C library, any CPU)
 * and, on x86-64 with GCC or clang, for CPUs with FMA and SSE4.1, where fmaf and rintf are one
 * instruction each (vfmadd, vroundss: the same correctly rounded results); the module picks
 * the second where the CPU has both (cpuid, at import; ``variant()`` says which runs). */
ALWAYS_INLINE long expf_body(const float *x, float *out, Py_ssize_t count)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        float d = x[i];
        out[i] = isnan(d) ? u2f(f2u(d) | 0x400000u) : vexpf1(d);
    }
    return 0;
}

ALWAYS_INLINE long logf_body(const float *x, float *out, Py_ssize_t count)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!vlog_ok(x[i])) return 1;
        out[i] = vlogf1(x[i]);
    }
    return 0;
}

/* x (rows, n) -> out: log_softmax along the rows (lanes L); 1 on a nan */
ALWAYS_INLINE long lsm_body(const float *x, float *out, Py_ssize_t rows, Py_ssize_t n, int L)
{
    for (Py_ssize_t r = 0; r < rows; r++, x += n, out += n) {
        float mx = x[0];
        for (Py_ssize_t k = 1; k < n; k++)
            if (x[k] > mx) mx = x[k];
        for (Py_ssize_t k = 0; k < n; k++) {      /* out holds x - max */
            out[k] = x[k] - mx;
            if (isnan(out[k])) return 1;
        }
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
        if (!vlog_ok(ls)) return 1;
        ls = vlogf1(ls);
        for (Py_ssize_t k = 0; k < n; k++) out[k] = out[k] - ls;
    }
    return 0;
}

/* y, g (rows, n) -> out = g - exp(y) * sum(g), fused; 1 on a nan or a sum not finite */
ALWAYS_INLINE long lsm_bwd_body(const float *y, const float *g, float *out, Py_ssize_t rows,
                                Py_ssize_t n, int L)
{
    for (Py_ssize_t r = 0; r < rows; r++, y += n, g += n, out += n) {
        float s = vsumf(g, n, L);
        if (!isfinite(s)) return 1;
        for (Py_ssize_t k = 0; k < n; k++) {
            if (isnan(y[k]) || isnan(g[k])) return 1;
            out[k] = fmaf(-vexpf1(y[k]), s, g[k]);
        }
    }
    return 0;
}

/* x (rows, n) -> out: softmax, e * (1 / sum); 1 on a nan */
ALWAYS_INLINE long sm_body(const float *x, float *out, Py_ssize_t rows, Py_ssize_t n, int L)
{
    for (Py_ssize_t r = 0; r < rows; r++, x += n, out += n) {
        float mx = x[0];
        for (Py_ssize_t k = 1; k < n; k++)
            if (x[k] > mx) mx = x[k];
        for (Py_ssize_t k = 0; k < n; k++) {
            float sh = x[k] - mx;
            if (isnan(sh)) return 1;
            out[k] = vexpf1(sh);
        }
        float inv = 1.0f / vsumf(out, n, L);
        for (Py_ssize_t k = 0; k < n; k++) out[k] = out[k] * inv;
    }
    return 0;
}

/* y, g (rows, n) -> out = (g - sum(g * y)) * y; 1 on a nan */
ALWAYS_INLINE long sm_bwd_body(const float *y, const float *g, float *out, Py_ssize_t rows,
                               Py_ssize_t n, int L)
{
    for (Py_ssize_t r = 0; r < rows; r++, y += n, g += n, out += n) {
        for (Py_ssize_t k = 0; k < n; k++) out[k] = g[k] * y[k];   /* (out: scratch) */
        float s = vsumf(out, n, L);
        if (isnan(s)) return 1;
        for (Py_ssize_t k = 0; k < n; k++) out[k] = (g[k] - s) * y[k];
    }
    return 0;
}

typedef struct {
    const char *name;
    long (*expf)(const float *, float *, Py_ssize_t);
    long (*logf)(const float *, float *, Py_ssize_t);
    long (*lsm)(const float *, float *, Py_ssize_t, Py_ssize_t, int);
    long (*lsm_bwd)(const float *, const float *, float *, Py_ssize_t, Py_ssize_t, int);
    long (*sm)(const float *, float *, Py_ssize_t, Py_ssize_t, int);
    long (*sm_bwd)(const float *, const float *, float *, Py_ssize_t, Py_ssize_t, int);
} Kernels;

#define INSTANTIATE(SUFFIX, ATTR)                                                             \
    ATTR static long expf_##SUFFIX(const float *x, float *o, Py_ssize_t c)                   \
    { return expf_body(x, o, c); }                                                            \
    ATTR static long logf_##SUFFIX(const float *x, float *o, Py_ssize_t c)                   \
    { return logf_body(x, o, c); }                                                            \
    ATTR static long lsm_##SUFFIX(const float *x, float *o, Py_ssize_t r, Py_ssize_t n, int L) \
    { return lsm_body(x, o, r, n, L); }                                                       \
    ATTR static long lsm_bwd_##SUFFIX(const float *y, const float *g, float *o, Py_ssize_t r,  \
                                      Py_ssize_t n, int L)                                    \
    { return lsm_bwd_body(y, g, o, r, n, L); }                                                \
    ATTR static long sm_##SUFFIX(const float *x, float *o, Py_ssize_t r, Py_ssize_t n, int L)  \
    { return sm_body(x, o, r, n, L); }                                                        \
    ATTR static long sm_bwd_##SUFFIX(const float *y, const float *g, float *o, Py_ssize_t r,   \
                                     Py_ssize_t n, int L)                                     \
    { return sm_bwd_body(y, g, o, r, n, L); }                                                 \
    static const Kernels K_##SUFFIX = {#SUFFIX, expf_##SUFFIX, logf_##SUFFIX, lsm_##SUFFIX,  \
                                       lsm_bwd_##SUFFIX, sm_##SUFFIX, sm_bwd_##SUFFIX};

INSTANTIATE(generic, )
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_FMA_VARIANT 1
INSTANTIATE(fma, __attribute__((target("fma,sse4.1"))))
#endif

static const Kernels *KERN = &K_generic;
static int HAS_AVX2 = 0;   /* (the vectorised elementwise loops' AVX2 build) */

static void pick_kernels(void)
{
#ifdef HAVE_FMA_VARIANT
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("sse4.1")) KERN = &K_fma;
    HAS_AVX2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
}

/* ------------------------------------------------------------------ exported: float32 kernels */
/* expf_u10(x, out) -> 0 (a nan gives itself, quieted, as the replay does) */
static PyObject *py_expf_u10(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    if (parse(args, nargs, 2, 1, 4, 0, NULL, &bs, "expf_u10") < 0) return NULL;
    long status = KERN->expf(bs.b[0].buf, bs.b[1].buf, bs.b[0].len / 4);
    release(&bs);
    return PyLong_FromLong(status);
}

/* logf_u10(x, out) -> 0, or 1 if a value is not positive finite below 2**127 */
static PyObject *py_logf_u10(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    if (parse(args, nargs, 2, 1, 4, 0, NULL, &bs, "logf_u10") < 0) return NULL;
    long status = KERN->logf(bs.b[0].buf, bs.b[1].buf, bs.b[0].len / 4);
    release(&bs);
    return PyLong_FromLong(status);
}

/* the row kernels: (x, out, n, lanes) or (y, g, out, n, lanes) */
static PyObject *row_kernel(PyObject *const *args, Py_ssize_t nargs, int nbuf, const char *name,
                            int which)
{
    Bufs bs;
    Py_ssize_t p[2], rows;
    if (parse(args, nargs, nbuf, 1, 4, 2, p, &bs, name) < 0) return NULL;
    if (rows_of(&bs, p[0], p[1], 4, &rows, name) < 0) return NULL;
    Py_ssize_t n = p[0];
    int L = (int)p[1];
    long status;
    void *a = bs.b[0].buf, *b = bs.b[1].buf, *c = nbuf == 3 ? bs.b[2].buf : NULL;
    switch (which) {
    case 0: status = KERN->lsm(a, b, rows, n, L); break;
    case 1: status = KERN->lsm_bwd(a, b, c, rows, n, L); break;
    case 2: status = KERN->sm(a, b, rows, n, L); break;
    default: status = KERN->sm_bwd(a, b, c, rows, n, L); break;
    }
    release(&bs);
    return PyLong_FromLong(status);
}

/* x (rows, n) float32 -> out: log_softmax along the rows (lanes L); 1 on a nan */
static PyObject *py_log_softmax_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{ return row_kernel(args, nargs, 2, "log_softmax_f32", 0); }

/* y, g (rows, n) float32 -> out = g - exp(y) * sum(g), fused; 1 on a nan or a sum not finite */
static PyObject *py_log_softmax_backward_f32(PyObject *self, PyObject *const *args,
                                             Py_ssize_t nargs)
{ return row_kernel(args, nargs, 3, "log_softmax_backward_f32", 1); }

/* x (rows, n) float32 -> out: softmax, e * (1 / sum); 1 on a nan */
static PyObject *py_softmax_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{ return row_kernel(args, nargs, 2, "softmax_f32", 2); }

/* y, g (rows, n) float32 -> out = (g - sum(g * y)) * y; 1 on a nan */
static PyObject *py_softmax_backward_f32(PyObject *self, PyObject *const *args,
                                         Py_ssize_t nargs)
{ return row_kernel(args, nargs, 3, "softmax_backward_f32", 3); }

/* variant() -> the name of the float32 kernels' build that runs; variant(name) picks one
 * ("generic" or "fma", if this CPU has it) and returns the name of the one before (tests) */
static PyObject *py_variant(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *before = KERN->name;
    if (nargs == 1) {
        const char *want = PyUnicode_AsUTF8(args[0]);
        if (want == NULL) return NULL;
        if (strcmp(want, "generic") == 0) KERN = &K_generic;
#ifdef HAVE_FMA_VARIANT
        else if (strcmp(want, "fma") == 0 && __builtin_cpu_supports("fma")
                 && __builtin_cpu_supports("sse4.1")) KERN = &K_fma;
#endif
        else {
            PyErr_Format(PyExc_ValueError, "no kernel variant %s here", want);
            return NULL;
        }
    }
    return PyUnicode_FromString(before);
}

/* ------------------------------------------------------------------ exported: tanh's backward */
/* tanh_grad_f32(out, dout, res) -> 0: res = dout * float32(1 - out * out in double), torch's
 * tanh_backward as _ops._tanh_grad_fwd computes it (the double product of two floats is exact,
 * so 1 - out * out is one rounding, as the fused kernel's); 1 (the replay) on a nan */
/* elementwise, no sums: vectorised (the same IEEE operations on each value) */
#if defined(__GNUC__) && !defined(__clang__)
#define VECTORISE __attribute__((optimize("tree-vectorize")))
#else
#define VECTORISE
#endif
ALWAYS_INLINE long tanh_grad_body(const float *o, const float *d, float *r, Py_ssize_t count)
{
    int bad = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        double oo = (double)o[i];
        r[i] = d[i] * (float)(1.0 - oo * oo);
    }
    for (Py_ssize_t i = 0; i < count; i++) bad |= (o[i] != o[i]) | (d[i] != d[i]);
    return bad;
}
VECTORISE static long tanh_grad_generic(const float *o, const float *d, float *r, Py_ssize_t n)
{ return tanh_grad_body(o, d, r, n); }
#ifdef HAVE_FMA_VARIANT
VECTORISE __attribute__((target("avx2,fma"))) static long tanh_grad_avx2(const float *o,
    const float *d, float *r, Py_ssize_t n)
{ return tanh_grad_body(o, d, r, n); }
#define TANH_GRAD_FAST tanh_grad_avx2
#else
#define TANH_GRAD_FAST tanh_grad_generic
#endif

static PyObject *py_tanh_grad_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Bufs bs;
    if (parse(args, nargs, 3, 1, 4, 0, NULL, &bs, "tanh_grad_f32") < 0) return NULL;
    const float *o = bs.b[0].buf, *d = bs.b[1].buf;
    float *r = bs.b[2].buf;
    long bad = (KERN == &K_generic || !HAS_AVX2 ? tanh_grad_generic : TANH_GRAD_FAST)(
        o, d, r, bs.b[0].len / 4);
    release(&bs);
    return PyLong_FromLong(bad ? 1 : 0);
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

/* ------------------------------------------------------------------ exported: nll_loss */
/* torch's nll_loss sum (the replay _softmax_kernels.cascade_sum): 8 levels of partial sums, a
 * carry after every 16th position (a position skipped carries nothing), the levels added in
 * order from +0. v(b) is position b's value; ignored positions are skipped. */
#define CASCADE(T, OUT, V)                                                                    \
    do {                                                                                      \
        T acc_[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                 \
        for (Py_ssize_t b = 0; b < rows; b++) {                                               \
            if (t[b] == ignore) continue;                                                     \
            acc_[0] = acc_[0] + (V);                                                          \
            for (int j = 0; j < 7; j++) {                                                     \
                if ((uint64_t)b & ((uint64_t)15 << (j * 4))) break;                           \
                acc_[j + 1] = acc_[j + 1] + acc_[j];                                          \
                acc_[j] = 0;                                                                  \
            }                                                                                 \
        }                                                                                     \
        T s_ = 0;                                                                             \
        for (int j = 0; j < 8; j++) s_ = s_ + acc_[j];                                        \
        OUT = s_;                                                                             \
    } while (0)

/* one dtype's nll_loss, reduction mean or sum, as the replay _softmax_ops._nll_fwd: 0 with the
 * value in *res, or 1 (a nan, a target out of range, a zero total weight: the replay) */
#define NLL_FN(NAME, T)                                                                       \
static long NAME(const T *x, const int64_t *t, const T *w, Py_ssize_t rows, Py_ssize_t C,     \
                 int64_t ignore, int mean, double *res)                                       \
{                                                                                             \
    int weighted = 0;                                                                         \
    for (Py_ssize_t c = 0; c < C; c++) {                                                      \
        if (isnan(w[c])) return 1;                                                            \
        if (w[c] != 1) weighted = 1;                                                          \
    }                                                                                         \
    Py_ssize_t count = 0;                                                                     \
    for (Py_ssize_t b = 0; b < rows; b++) {                                                   \
        if (t[b] == ignore) continue;                                                         \
        if (t[b] < 0 || t[b] >= C || isnan(x[b * C + t[b]])) return 1;                        \
        count++;                                                                              \
    }                                                                                         \
    T total, tw;                                                                              \
    if (weighted)                                                                             \
        CASCADE(T, total, -(x[b * C + t[b]] * w[t[b]]));                                      \
    else                                                                                      \
        CASCADE(T, total, -x[b * C + t[b]]);                                                  \
    if (mean) {                                                                               \
        if (weighted)                                                                         \
            CASCADE(T, tw, w[t[b]]);                                                          \
        else                                                                                  \
            tw = (T)count;                                                                    \
        if (!(tw != 0)) return 1;                                                             \
        total = total / tw;                                                                   \
    }                                                                                         \
    *res = (double)total;                                                                     \
    return 0;                                                                                 \
}

NLL_FN(nll_f32, float)
NLL_FN(nll_f64, double)

/* one dtype's nll_loss gradient for reduction mean or sum, as the replay _softmax_ops._nll_vjp:
 * hot (rows, C) zeros gets -(g / total weight) (mean) or -g (sum) at each counted row's target,
 * times the target's weight when some weight is not 1; 1 (nothing written) on a nan, a target
 * out of range or a zero total weight */
#define NLL_GRAD_FN(NAME, T)                                                                  \
static long NAME(T *hot, const int64_t *t, const T *w, Py_ssize_t rows, Py_ssize_t C,         \
                 int64_t ignore, T g, int mean)                                               \
{                                                                                             \
    if (isnan(g)) return 1;                                                                   \
    int weighted = 0;                                                                         \
    for (Py_ssize_t c = 0; c < C; c++) {                                                      \
        if (isnan(w[c])) return 1;                                                            \
        if (w[c] != 1) weighted = 1;                                                          \
    }                                                                                         \
    Py_ssize_t count = 0;                                                                     \
    for (Py_ssize_t b = 0; b < rows; b++) {                                                   \
        if (t[b] == ignore) continue;                                                         \
        if (t[b] < 0 || t[b] >= C) return 1;                                                  \
        count++;                                                                              \
    }                                                                                         \
    T grad = -g, tw;                                                                          \
    if (mean) {                                                                               \
        if (weighted)                                                                         \
            CASCADE(T, tw, w[t[b]]);                                                          \
        else                                                                                  \
            tw = (T)count;                                                                    \
        if (!(tw != 0)) return 1;                                                             \
        grad = -(g / tw);                                                                     \
    }                                                                                         \
    for (Py_ssize_t b = 0; b < rows; b++) {                                                   \
        if (t[b] == ignore) continue;                                                         \
        hot[b * C + t[b]] = weighted ? w[t[b]] * grad : grad;                                 \
    }                                                                                         \
    return 0;                                                                                 \
}

NLL_GRAD_FN(nll_grad_f32, float)
NLL_GRAD_FN(nll_grad_f64, double)

/* nll_grad(hot, target, weight, ignore_index, g, mean) -> 0, or 1 (the replay): hot (rows, C)
 * float32/float64 zeros, target (rows,) int64, weight (C,) of hot's dtype, g the output
 * gradient (a float of hot's dtype) */
static PyObject *py_nll_grad(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer h, t, w;
    if (nargs != 6) { PyErr_SetString(PyExc_TypeError, "nll_grad takes 6 arguments"); return NULL; }
    int64_t ignore = PyLong_AsLongLong(args[3]);
    if (ignore == -1 && PyErr_Occurred()) return NULL;
    double g = PyFloat_AsDouble(args[4]);
    if (g == -1.0 && PyErr_Occurred()) return NULL;
    int mean = PyObject_IsTrue(args[5]);
    if (mean < 0) return NULL;
    if (PyObject_GetBuffer(args[0], &h, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &t, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&h); return NULL;
    }
    if (PyObject_GetBuffer(args[2], &w, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&h); PyBuffer_Release(&t); return NULL;
    }
    Py_ssize_t isz = h.itemsize, rows = t.len / 8, C = w.len / (isz ? isz : 1);
    long status;
    if (t.itemsize != 8 || w.itemsize != isz || (isz != 4 && isz != 8) || C <= 0
        || h.len != rows * C * isz) {
        PyErr_SetString(PyExc_ValueError, "nll_grad: hot (rows, C), int64 target, weight (C,)");
        PyBuffer_Release(&h); PyBuffer_Release(&t); PyBuffer_Release(&w);
        return NULL;
    }
    if (isz == 4)
        status = nll_grad_f32(h.buf, t.buf, w.buf, rows, C, ignore, (float)g, mean);
    else
        status = nll_grad_f64(h.buf, t.buf, w.buf, rows, C, ignore, g, mean);
    PyBuffer_Release(&h); PyBuffer_Release(&t); PyBuffer_Release(&w);
    return PyLong_FromLong(status);
}

/* nll_reduce(x, target, weight, ignore_index, mean) -> the loss as a float, or None (the
 * replay): x (rows, C) float32/float64, target (rows,) int64, weight (C,) of x's dtype */
static PyObject *py_nll_reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer x, t, w;
    if (nargs != 5) { PyErr_SetString(PyExc_TypeError, "nll_reduce takes 5 arguments"); return NULL; }
    int64_t ignore = PyLong_AsLongLong(args[3]);
    if (ignore == -1 && PyErr_Occurred()) return NULL;
    int mean = PyObject_IsTrue(args[4]);
    if (mean < 0) return NULL;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &t, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&x); return NULL;
    }
    if (PyObject_GetBuffer(args[2], &w, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&x); PyBuffer_Release(&t); return NULL;
    }
    Py_ssize_t isz = x.itemsize, rows = t.len / 8, C = w.len / (isz ? isz : 1);
    long status = 1;
    double res = 0;
    if (t.itemsize != 8 || w.itemsize != isz || (isz != 4 && isz != 8) || C <= 0
        || x.len != rows * C * isz) {
        PyErr_SetString(PyExc_ValueError, "nll_reduce: x (rows, C), int64 target, weight (C,)");
        PyBuffer_Release(&x); PyBuffer_Release(&t); PyBuffer_Release(&w);
        return NULL;
    }
    if (isz == 4)
        status = nll_f32(x.buf, t.buf, w.buf, rows, C, ignore, mean, &res);
    else
        status = nll_f64(x.buf, t.buf, w.buf, rows, C, ignore, mean, &res);
    PyBuffer_Release(&x); PyBuffer_Release(&t); PyBuffer_Release(&w);
    if (status) Py_RETURN_NONE;
    return PyFloat_FromDouble(res);
}

/* ------------------------------------------------------------------ exported: column sums */
/* column_sums(a, out, lanes) -> 0: the sums over axis 0 of a C-contiguous (n, m) float32 or
 * float64 matrix in torch's order, as the replay gradrepl/torch/_kernels.py _matrix_columns
 * computes them (its _outer_sums: torch's vectorized_outer_sum for m >= lanes, else its scalar
 * one; multi_row_sum's levels of partial sums, row_sum's 4 interleaved accumulators); every
 * sum runs from zero, each add rounded, in the replay's order. 1 (nothing written) on a nan. */
/* Each column's sums are the replay's, in its order; the columns are taken COLW at a time, all
 * of a block through the same steps (column c of row r at x[r * ld + c]), so that the adds of
 * one row run over neighbouring values (vectorised: each column's operations stay its own, in
 * order, each add rounded). */
#define COLW 64
#define COLSUM_FNS(SUF, T)                                                                    \
/* out[c] = the replay's _seq of column c: 0 + x[0] + x[ld] + ... (out may be one of x's rows) */\
VECTORISE static void seq_##SUF(const T *x, Py_ssize_t ld, Py_ssize_t n, int nc, T *out)      \
{                                                                                             \
    T acc[COLW];                                                                              \
    for (int c = 0; c < nc; c++) acc[c] = 0;                                                  \
    for (Py_ssize_t i = 0; i < n; i++) {                                                      \
        const T *r = x + i * ld;                                                              \
        for (int c = 0; c < nc; c++) acc[c] = acc[c] + r[c];                                  \
    }                                                                                         \
    for (int c = 0; c < nc; c++) out[c] = acc[c];                                             \
}                                                                                             \
/* the replay's _multi_row_sum of each column, rows r < size; buf: >= size / 16 rows of COLW */\
VECTORISE static void mrs_##SUF(const T *x, Py_ssize_t ld, Py_ssize_t size, int nc, T *out,   \
                                T *buf)                                                       \
{                                                                                             \
    int ceillog2 = 0;                                                                         \
    if (size > 1) { uint64_t v = (uint64_t)(size - 1); while (v) { ceillog2++; v >>= 1; } }   \
    int level_power = ceillog2 / 4 > 4 ? ceillog2 / 4 : 4;                                    \
    Py_ssize_t step = (Py_ssize_t)1 << level_power, nb = size / step;                         \
    T a0[COLW], acc1[COLW], acc2[COLW], acc3[COLW];                                           \
    if (!nb) { seq_##SUF(x, ld, size, nc, out); return; }                                     \
    for (Py_ssize_t b = 0; b < nb; b++) seq_##SUF(x + b * step * ld, ld, step, nc, buf + b * COLW);\
    Py_ssize_t g1 = nb / step;                                                                \
    if (!g1) {                                                                                \
        seq_##SUF(buf, COLW, nb, nc, acc1);                                                   \
        if (nb * step == size) { for (int c = 0; c < nc; c++) out[c] = acc1[c]; return; }     \
        seq_##SUF(x + nb * step * ld, ld, size - nb * step, nc, a0);                          \
        for (int c = 0; c < nc; c++) out[c] = a0[c] + acc1[c];                                \
        return;                                                                               \
    }                                                                                         \
    seq_##SUF(buf + g1 * step * COLW, COLW, nb - g1 * step, nc, acc1);                        \
    for (Py_ssize_t g = 0; g < g1; g++)                                                       \
        seq_##SUF(buf + g * step * COLW, COLW, step, nc, buf + g * COLW);                     \
    Py_ssize_t g2 = g1 / step;                                                                \
    seq_##SUF(buf + g2 * step * COLW, COLW, g1 - g2 * step, nc, acc2);                        \
    for (Py_ssize_t g = 0; g < g2; g++)                                                       \
        seq_##SUF(buf + g * step * COLW, COLW, step, nc, buf + g * COLW);                     \
    seq_##SUF(buf, COLW, g2, nc, acc3);                                                       \
    seq_##SUF(x + nb * step * ld, ld, size - nb * step, nc, a0);                              \
    for (int c = 0; c < nc; c++) out[c] = ((a0[c] + acc1[c]) + acc2[c]) + acc3[c];            \
}                                                                                             \
/* the replay's _row_sum of each column (4 interleaved partial sums) */                       \
VECTORISE static void rsum_##SUF(const T *x, Py_ssize_t ld, Py_ssize_t n, int nc, T *out,     \
                                 T *buf)                                                      \
{                                                                                             \
    Py_ssize_t ilp = n / 4;                                                                   \
    T p[4][COLW];                                                                             \
    for (int k = 0; k < 4; k++)                                                               \
        for (int c = 0; c < nc; c++) p[k][c] = 0;                                             \
    if (ilp)                                                                                  \
        for (int k = 0; k < 4; k++) mrs_##SUF(x + k * ld, 4 * ld, ilp, nc, p[k], buf);        \
    for (Py_ssize_t i = ilp * 4; i < n; i++)                                                  \
        for (int c = 0; c < nc; c++) p[0][c] = p[0][c] + x[i * ld + c];                       \
    for (int k = 1; k < 4; k++)                                                               \
        for (int c = 0; c < nc; c++) p[0][c] = p[0][c] + p[k][c];                             \
    for (int c = 0; c < nc; c++) out[c] = p[0][c];                                            \
}                                                                                             \
static long colsum_##SUF(const T *a, T *out, Py_ssize_t n, Py_ssize_t m, Py_ssize_t lanes,    \
                         T *buf)                                                              \
{                                                                                             \
    for (Py_ssize_t k = 0; k < n * m; k++)                                                    \
        if (isnan(a[k])) return 1;                                                            \
    Py_ssize_t j4 = m >= lanes ? m / (4 * lanes) * 4 * lanes : m / 4 * 4;                     \
    T v[COLW];                                                                                \
    for (Py_ssize_t j = 0; j < m;) {                                                          \
        Py_ssize_t end = j < j4 ? j4 : m;                                                     \
        int nc = (int)(end - j < COLW ? end - j : COLW);                                      \
        if (j < j4)                                                                           \
            mrs_##SUF(a + j, m, n, nc, v, buf);                                               \
        else                                                                                  \
            rsum_##SUF(a + j, m, n, nc, v, buf);                                              \
        for (int c = 0; c < nc; c++) out[j + c] = v[c] + (T)0;                                \
        j += nc;                                                                              \
    }                                                                                         \
    return 0;                                                                                 \
}

COLSUM_FNS(f, float)
COLSUM_FNS(d, double)

static PyObject *py_column_sums(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer a, o;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "column_sums takes 3 arguments"); return NULL;
    }
    Py_ssize_t lanes = PyLong_AsSsize_t(args[2]);
    if (lanes == -1 && PyErr_Occurred()) return NULL;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &o, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&a); return NULL;
    }
    char fa = a.format ? a.format[strlen(a.format) - 1] : 0;
    char fo = o.format ? o.format[strlen(o.format) - 1] : 0;
    long status = 0;
    if (a.ndim != 2 || fa != fo || !(fa == 'f' || fa == 'd') || lanes < 1
        || o.len != a.shape[1] * a.itemsize) {
        PyErr_SetString(PyExc_ValueError, "column_sums: a (n, m) float32/float64, out (m,)");
        PyBuffer_Release(&a); PyBuffer_Release(&o); return NULL;
    }
    Py_ssize_t n = a.shape[0], m = a.shape[1];
    void *buf = PyMem_Malloc((size_t)(n / 16 + 1) * COLW * (size_t)a.itemsize);
    if (!buf) { PyBuffer_Release(&a); PyBuffer_Release(&o); return PyErr_NoMemory(); }
    if (fa == 'f')
        status = colsum_f(a.buf, o.buf, n, m, lanes, buf);
    else
        status = colsum_d(a.buf, o.buf, n, m, lanes, buf);
    PyMem_Free(buf);
    PyBuffer_Release(&a); PyBuffer_Release(&o);
    return PyLong_FromLong(status);
}

/* ------------------------------------------------------------------ exported: float32 var/std */
/* var_columns_f32(x, out, correction, root) -> 0: the variance (root: the standard deviation)
 * of each column of a C-contiguous (n, m) float32 matrix, n >= 1, m >= 2, as the replay
 * torch/_ops_shape.py _moments_fwd computes it (torch's double Welford rounds to the same
 * float32 but for a last-bit tie): in double, numpy's reductions over axis 0 (each column's
 * values added to its first in row order), the mean divided by n, the squared deviations
 * added so, divided by max(n - correction, 0), sqrt for root, rounded once to float32.
 * 1 (nothing written) where a value is not finite. */
static PyObject *py_var_columns_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer a, o;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "var_columns_f32 takes 4 arguments"); return NULL;
    }
    double correction = PyFloat_AsDouble(args[2]);
    if (correction == -1.0 && PyErr_Occurred()) return NULL;
    int root = PyObject_IsTrue(args[3]);
    if (root < 0) return NULL;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &o, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&a); return NULL;
    }
    char fa = a.format ? a.format[strlen(a.format) - 1] : 0;
    char fo = o.format ? o.format[strlen(o.format) - 1] : 0;
    if (a.ndim != 2 || fa != 'f' || fo != 'f' || a.shape[0] < 1 || a.shape[1] < 2
        || o.len != a.shape[1] * 4) {
        PyErr_SetString(PyExc_ValueError, "var_columns_f32: x (n, m) float32, out (m,) float32");
        PyBuffer_Release(&a); PyBuffer_Release(&o); return NULL;
    }
    Py_ssize_t n = a.shape[0], m = a.shape[1];
    const float *x = a.buf;
    float *out = o.buf;
    long status = 0;
    for (Py_ssize_t k = 0; k < n * m; k++)
        if (!isfinite(x[k])) { status = 1; break; }
    double *mean = NULL, *ss = NULL;
    if (!status) {
        mean = PyMem_Malloc((size_t)m * 2 * sizeof(double));
        if (!mean) { PyBuffer_Release(&a); PyBuffer_Release(&o); return PyErr_NoMemory(); }
        ss = mean + m;
        for (Py_ssize_t j = 0; j < m; j++) mean[j] = (double)x[j];
        for (Py_ssize_t i = 1; i < n; i++)
            for (Py_ssize_t j = 0; j < m; j++) mean[j] = mean[j] + (double)x[i * m + j];
        double count = (double)n;
        for (Py_ssize_t j = 0; j < m; j++) mean[j] = mean[j] / count;
        for (Py_ssize_t j = 0; j < m; j++) {
            double d = (double)x[j] - mean[j];
            ss[j] = d * d;
        }
        for (Py_ssize_t i = 1; i < n; i++)
            for (Py_ssize_t j = 0; j < m; j++) {
                double d = (double)x[i * m + j] - mean[j];
                ss[j] = ss[j] + d * d;
            }
        double dof = (double)n - correction;
        if (!(dof > 0)) dof = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            double v = ss[j] / dof;
            if (root) v = sqrt(v);
            out[j] = (float)v;
        }
        PyMem_Free(mean);
    }
    PyBuffer_Release(&a); PyBuffer_Release(&o);
    return PyLong_FromLong(status);
}

/* ------------------------------------------------------------------ exported: float32 fma */
/* fma_f32(a, b, c, out) -> 0: out = fmaf(a, b, c) element by element (one rounding: what the
 * replay torch/_norm_kernels.py fma computes, the double sum repaired where it ties), four
 * C-contiguous float32 buffers of one length. 1 (out not to be used) where an input or a
 * result is not finite (the replay keeps numpy's NaN payloads). */
static PyObject *py_fma_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v[4];
    if (nargs != 4) { PyErr_SetString(PyExc_TypeError, "fma_f32 takes 4 arguments"); return NULL; }
    int got = 0;
    for (; got < 4; got++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 3 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(args[got], &v[got], flags) < 0) break;
    }
    long status = 0;
    if (got < 4) {
        for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        char f = v[i].format ? v[i].format[strlen(v[i].format) - 1] : 0;
        if (f != 'f' || v[i].itemsize != 4 || v[i].len != v[3].len) {
            for (int k = 0; k < 4; k++) PyBuffer_Release(&v[k]);
            PyErr_SetString(PyExc_ValueError, "fma_f32: four float32 buffers of one length");
            return NULL;
        }
    }
    const float *a = v[0].buf, *b = v[1].buf, *c = v[2].buf;
    float *o = v[3].buf;
    Py_ssize_t n = v[3].len / 4;
    for (Py_ssize_t i = 0; i < n; i++) {
        float r = fmaf(a[i], b[i], c[i]);
        if (!isfinite(r) || !isfinite(a[i]) || !isfinite(b[i]) || !isfinite(c[i])) {
            status = 1; break;
        }
        o[i] = r;
    }
    for (int k = 0; k < 4; k++) PyBuffer_Release(&v[k]);
    return PyLong_FromLong(status);
}

/* ------------------------------------------------------------------ the intra-op threads */
/* One persistent pool of threads for the kernels below that split their work as torch's
 * intra-op threads do (samples of a convolution, the per-thread parts of a filter gradient):
 * the caller (GIL released) takes parts too; the pool's threads sleep on a condition variable
 * between calls (no spinning against MKL's or OpenBLAS's threads); made on first use, grown to
 * the count asked for; after a fork the child starts a new pool. Which thread computes a part
 * never changes its bits: the parts are the framework's. */
#include <pthread.h>
typedef void (*part_fn)(void *ctx, Py_ssize_t part);
static pthread_mutex_t POOL_MU = PTHREAD_MUTEX_INITIALIZER, POOL_RUN = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t POOL_GO = PTHREAD_COND_INITIALIZER, POOL_DONE = PTHREAD_COND_INITIALIZER;
static int POOL_THREADS = 0;
static part_fn POOL_FN;
static void *POOL_CTX;
static Py_ssize_t POOL_NEXT, POOL_COUNT, POOL_LEFT;
static unsigned long POOL_GEN = 0;

/* takes parts while any are left; POOL_MU held on entry and on return */
static void pool_take(void)
{
    part_fn fn = POOL_FN;
    void *ctx = POOL_CTX;
    while (POOL_NEXT < POOL_COUNT) {
        Py_ssize_t i = POOL_NEXT++;
        pthread_mutex_unlock(&POOL_MU);
        fn(ctx, i);
        pthread_mutex_lock(&POOL_MU);
        if (--POOL_LEFT == 0) pthread_cond_broadcast(&POOL_DONE);
    }
}

static void *pool_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&POOL_MU);
    unsigned long seen = POOL_GEN;
    for (;;) {
        while (POOL_GEN == seen) pthread_cond_wait(&POOL_GO, &POOL_MU);
        seen = POOL_GEN;
        pool_take();
    }
    return NULL;
}

static void pool_after_fork(void)
{
    pthread_mutex_init(&POOL_MU, NULL);
    pthread_mutex_init(&POOL_RUN, NULL);
    pthread_cond_init(&POOL_GO, NULL);
    pthread_cond_init(&POOL_DONE, NULL);
    POOL_THREADS = 0;
}

/* fn(ctx, i) for i in [0, count), on up to `threads` threads (this one included); call without
 * the GIL */
static void pool_run(part_fn fn, void *ctx, Py_ssize_t count, int threads)
{
    if (count <= 1 || threads <= 1) {
        for (Py_ssize_t i = 0; i < count; i++) fn(ctx, i);
        return;
    }
    pthread_mutex_lock(&POOL_RUN);
    pthread_mutex_lock(&POOL_MU);
    while (POOL_THREADS < threads - 1 && POOL_THREADS < 63) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int bad = pthread_create(&t, &attr, pool_worker, NULL);
        pthread_attr_destroy(&attr);
        if (bad) break;
        POOL_THREADS++;
    }
    POOL_FN = fn; POOL_CTX = ctx; POOL_NEXT = 0; POOL_COUNT = count; POOL_LEFT = count;
    POOL_GEN++;
    pthread_cond_broadcast(&POOL_GO);
    pool_take();
    while (POOL_LEFT > 0) pthread_cond_wait(&POOL_DONE, &POOL_MU);
    pthread_mutex_unlock(&POOL_MU);
    pthread_mutex_unlock(&POOL_RUN);
}

/* ------------------------------------------------------------------ exported: direct convolution */
/* conv_chains_f32(xp, w, bias, out, dims, threads) -> 0: oneDNN's direct convolution kernel's sums at
 * stride 1 (gradrepl/torch/nn/_onednn_conv.py, whose numpy chains are the reference), on an input
 * the caller padded: for the samples n in [n0, n1), out[n, o, y, x] = the input channels in
 * blocks of `block`, per block one fused multiply-add chain from +0 over the kernel offsets
 * (kh, kw) in order and, inner, the block's channels c, of xp[n, c] at the flat position
 * y * Wp + x + base + kh * offh + kw * offw and w[o * wo + c * wc + kh * wkh + kw * wkw]; the
 * blocks' sums added in order (float32), the bias after the first block (bias_mode 1) or after
 * the last (2). The padding's zero terms are in the chain (exact: a chain from +0 never holds
 * -0). Each block's chains run over the flat span of the padded plane (positions past a row's
 * end are computed and dropped), so the inner loop is long and vectorised. Finite inputs (the
 * caller checks); xp (N, C, Hp, Wp), out (N, O, OH, OW) C-contiguous float32 (xp may hold up
 * to 64 more values after the planes: then the span's last chunk runs whole too); dims a tuple
 * of 19 ints (below). The GIL is released; the samples [n0, n1) go in up to `threads` balance211
 * parts over the intra-op pool (a sample's sums are the same on any thread). */
#define CONV_CHUNK 64
/* one full chunk's chains with the sums in eight AVX2 registers (the same fmaf per value, in
 * the same order, as the scalar loop): 1 when done, 0 to leave it to the loop */
#if defined(HAVE_FMA_VARIANT)
#include <immintrin.h>
__attribute__((target("avx2,fma"))) static int chunk_avx2(
    const float *xn, const float *wo_, Py_ssize_t cb, Py_ssize_t ce, Py_ssize_t KH,
    Py_ssize_t KW, Py_ssize_t HW, Py_ssize_t offh, Py_ssize_t offw, Py_ssize_t wc,
    Py_ssize_t wkh, Py_ssize_t wkw, float *dst)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
           a7 = a0;
    for (Py_ssize_t kh = 0; kh < KH; kh++)
        for (Py_ssize_t kw = 0; kw < KW; kw++)
            for (Py_ssize_t c = cb; c < ce; c++) {
                __m256 wv = _mm256_set1_ps(wo_[c * wc + kh * wkh + kw * wkw]);
                const float *s = xn + c * HW + kh * offh + kw * offw;
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(s), wv, a0);
                a1 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 8), wv, a1);
                a2 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 16), wv, a2);
                a3 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 24), wv, a3);
                a4 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 32), wv, a4);
                a5 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 40), wv, a5);
                a6 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 48), wv, a6);
                a7 = _mm256_fmadd_ps(_mm256_loadu_ps(s + 56), wv, a7);
            }
    _mm256_storeu_ps(dst, a0); _mm256_storeu_ps(dst + 8, a1);
    _mm256_storeu_ps(dst + 16, a2); _mm256_storeu_ps(dst + 24, a3);
    _mm256_storeu_ps(dst + 32, a4); _mm256_storeu_ps(dst + 40, a5);
    _mm256_storeu_ps(dst + 48, a6); _mm256_storeu_ps(dst + 56, a7);
    return 1;
}
__attribute__((target("avx512f,fma"))) static int chunk_avx512(
    const float *xn, const float *wo_, Py_ssize_t cb, Py_ssize_t ce, Py_ssize_t KH,
    Py_ssize_t KW, Py_ssize_t HW, Py_ssize_t offh, Py_ssize_t offw, Py_ssize_t wc,
    Py_ssize_t wkh, Py_ssize_t wkw, float *dst)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (Py_ssize_t kh = 0; kh < KH; kh++)
        for (Py_ssize_t kw = 0; kw < KW; kw++)
            for (Py_ssize_t c = cb; c < ce; c++) {
                __m512 wv = _mm512_set1_ps(wo_[c * wc + kh * wkh + kw * wkw]);
                const float *s = xn + c * HW + kh * offh + kw * offw;
                a0 = _mm512_fmadd_ps(_mm512_loadu_ps(s), wv, a0);
                a1 = _mm512_fmadd_ps(_mm512_loadu_ps(s + 16), wv, a1);
                a2 = _mm512_fmadd_ps(_mm512_loadu_ps(s + 32), wv, a2);
                a3 = _mm512_fmadd_ps(_mm512_loadu_ps(s + 48), wv, a3);
            }
    _mm512_storeu_ps(dst, a0); _mm512_storeu_ps(dst + 16, a1);
    _mm512_storeu_ps(dst + 32, a2); _mm512_storeu_ps(dst + 48, a3);
    return 1;
}
/* 0: the loop; 1: AVX2; 2: AVX-512 (the same fused multiply-adds, wider) */
static int USE_CHUNK_AVX2 = 0;
#define CHUNK_FULL(...) (USE_CHUNK_AVX2 == 2 ? chunk_avx512(__VA_ARGS__) : \
                         USE_CHUNK_AVX2 == 1 && chunk_avx2(__VA_ARGS__))
#else
#define CHUNK_FULL(...) 0
#endif
ALWAYS_INLINE void conv_chains_body(const float *X, const float *Wt, const float *B, float *OUT,
                                    const Py_ssize_t *d, float *acc)
{
    Py_ssize_t C = d[0], HW = d[1], Wp = d[2], O = d[3], OH = d[4], OW = d[5], KH = d[6],
               KW = d[7], offh = d[8], offw = d[9], base = d[10], wo = d[11], wc = d[12],
               wkh = d[13], wkw = d[14], block = d[15], mode = d[16], n0 = d[17], n1 = d[18];
    Py_ssize_t span = (OH - 1) * Wp + OW, P = OH * OW, slack = d[19];
    for (Py_ssize_t n = n0; n < n1; n++) {
        for (Py_ssize_t o = 0; o < O; o++) {
            float *op = OUT + (n * O + o) * P;
            for (Py_ssize_t cb = 0; cb < C; cb += block) {
                Py_ssize_t ce = cb + block < C ? cb + block : C;
                /* a chunk of the span's sums held in registers through the whole chain */
                for (Py_ssize_t i0 = 0; i0 < span; i0 += CONV_CHUNK) {
                    float a[CONV_CHUNK];
                    const float *xn = X + n * C * HW + i0 + base;
                    if ((span - i0 >= CONV_CHUNK || slack) && CHUNK_FULL(xn, Wt + o * wo, cb, ce, KH, KW, HW,
                                                              offh, offw, wc, wkh, wkw, acc + i0)) {
                    } else if (span - i0 >= CONV_CHUNK) {
                        for (int i = 0; i < CONV_CHUNK; i++) a[i] = 0.0f;
                        for (Py_ssize_t kh = 0; kh < KH; kh++)
                            for (Py_ssize_t kw = 0; kw < KW; kw++)
                                for (Py_ssize_t c = cb; c < ce; c++) {
                                    float wv = Wt[o * wo + c * wc + kh * wkh + kw * wkw];
                                    const float *src = xn + c * HW + kh * offh + kw * offw;
                                    for (int i = 0; i < CONV_CHUNK; i++)
                                        a[i] = fmaf(src[i], wv, a[i]);
                                }
                        for (int i = 0; i < CONV_CHUNK; i++) acc[i0 + i] = a[i];
                    } else {
                        Py_ssize_t len = span - i0;
                        for (Py_ssize_t i = 0; i < len; i++) a[i] = 0.0f;
                        for (Py_ssize_t kh = 0; kh < KH; kh++)
                            for (Py_ssize_t kw = 0; kw < KW; kw++)
                                for (Py_ssize_t c = cb; c < ce; c++) {
                                    float wv = Wt[o * wo + c * wc + kh * wkh + kw * wkw];
                                    const float *src = xn + c * HW + kh * offh + kw * offw;
                                    for (Py_ssize_t i = 0; i < len; i++)
                                        a[i] = fmaf(src[i], wv, a[i]);
                                }
                        for (Py_ssize_t i = 0; i < len; i++) acc[i0 + i] = a[i];
                    }
                }
                for (Py_ssize_t y = 0; y < OH; y++) {
                    const float *a = acc + y * Wp;
                    float *r = op + y * OW;
                    if (cb == 0 && mode == 1) {
                        float b = B[o];
                        for (Py_ssize_t x = 0; x < OW; x++) r[x] = a[x] + b;
                    } else if (cb == 0) {
                        for (Py_ssize_t x = 0; x < OW; x++) r[x] = a[x];
                    } else {
                        for (Py_ssize_t x = 0; x < OW; x++) r[x] = r[x] + a[x];
                    }
                }
            }
            if (mode == 2) { float b = B[o]; for (Py_ssize_t i = 0; i < P; i++) op[i] = op[i] + b; }
        }
    }
}
VECTORISE static void conv_chains_generic(const float *X, const float *W, const float *B,
                                          float *O, const Py_ssize_t *d, float *acc)
{ conv_chains_body(X, W, B, O, d, acc); }
#ifdef HAVE_FMA_VARIANT
VECTORISE __attribute__((target("avx2,fma"))) static void conv_chains_avx2(
    const float *X, const float *W, const float *B, float *O, const Py_ssize_t *d, float *acc)
{ conv_chains_body(X, W, B, O, d, acc); }
#define CONV_CHAINS_FAST conv_chains_avx2
#else
#define CONV_CHAINS_FAST conv_chains_generic
#endif

typedef struct {
    void (*kern)(const float *, const float *, const float *, float *, const Py_ssize_t *,
                 float *);
    const float *x, *w, *b;
    float *out;
    const Py_ssize_t *d;
    float *acc;
    Py_ssize_t span, count;
} ConvCtx;

static void conv_part(void *p, Py_ssize_t i)
{
    ConvCtx *c = p;
    Py_ssize_t d[20], n0 = c->d[17], n = c->d[18] - n0;
    memcpy(d, c->d, sizeof d);
    Py_ssize_t big = (n + c->count - 1) / c->count, small = n / c->count;
    Py_ssize_t first = big != small ? n - small * c->count : c->count;
    Py_ssize_t start = n0 + (i < first ? i * big : first * big + (i - first) * small);
    d[17] = start;
    d[18] = start + (i < first ? big : small);
    c->kern(c->x, c->w, c->b, c->out, d, c->acc + i * c->span);
}

static int read_dims(PyObject *t, Py_ssize_t *d, Py_ssize_t count, const char *name)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != count) {
        PyErr_Format(PyExc_ValueError, "%s: dims must be a tuple of %zd ints", name, count);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        d[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, i));
        if (d[i] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static int f32_buffer(PyObject *obj, Py_buffer *v, int writable, Py_ssize_t need,
                      const char *name)
{
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                           (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    char f = v->format ? v->format[strlen(v->format) - 1] : 0;
    if (f != 'f' || v->itemsize != 4 || v->len < need * 4) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s: a C-contiguous float32 buffer too small or of "
                     "another type", name);
        return -1;
    }
    return 0;
}

static PyObject *py_conv_chains_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t d[20];
    if (nargs != 6) { PyErr_SetString(PyExc_TypeError, "conv_chains_f32 takes 6 arguments"); return NULL; }
    if (read_dims(args[4], d, 19, "conv_chains_f32") < 0) return NULL;
    long threads = PyLong_AsLong(args[5]);
    if (threads == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t C = d[0], HW = d[1], Wp = d[2], O = d[3], OH = d[4], OW = d[5], KH = d[6],
               KW = d[7], n0 = d[17], n1 = d[18];
    int ok = C >= 0 && HW >= 0 && Wp >= 1 && O >= 0 && OH >= 1 && OW >= 1 && OW <= Wp &&
             KH >= 1 && KW >= 1 && d[15] >= 1 && n0 >= 0 && n1 >= n0 && d[11] >= 0 &&
             d[12] >= 0 && d[13] >= 0 && d[14] >= 0;
    /* every position read inside its plane: the offsets' extremes over the chain's span */
    for (int i = 0; ok && i < 4; i++) {
        Py_ssize_t off = d[10] + (i & 1 ? (KH - 1) * d[8] : 0) + (i & 2 ? (KW - 1) * d[9] : 0);
        ok = off >= 0 && off + (OH - 1) * Wp + OW <= HW;
    }
    if (!ok) { PyErr_SetString(PyExc_ValueError, "conv_chains_f32: geometry out of range"); return NULL; }
    Py_ssize_t wmax = O && C ? (O - 1) * d[11] + (C - 1) * d[12] + (KH - 1) * d[13] + (KW - 1) * d[14] + 1 : 0;
    Py_buffer bx, bw, bb, bo;
    int has_b = args[2] != Py_None;
    if (f32_buffer(args[0], &bx, 0, n1 * C * HW, "conv_chains_f32") < 0) return NULL;
    if (f32_buffer(args[1], &bw, 0, wmax, "conv_chains_f32") < 0) {
        PyBuffer_Release(&bx); return NULL;
    }
    if (has_b && f32_buffer(args[2], &bb, 0, O, "conv_chains_f32") < 0) {
        PyBuffer_Release(&bx); PyBuffer_Release(&bw); return NULL;
    }
    if (f32_buffer(args[3], &bo, 1, n1 * O * OH * OW, "conv_chains_f32") < 0) {
        PyBuffer_Release(&bx); PyBuffer_Release(&bw); if (has_b) PyBuffer_Release(&bb);
        return NULL;
    }
    if (!has_b) d[16] = 0;
    /* the last chunk full where the input buffer holds its reads (values past the span are
     * summed into lanes that are dropped) */
    Py_ssize_t span_r = ((OH - 1) * Wp + OW + CONV_CHUNK - 1) / CONV_CHUNK * CONV_CHUNK;
    d[19] = bx.len / 4 >= n1 * C * HW + span_r - ((OH - 1) * Wp + OW);
    /* the samples in balance211 parts, one a thread */
    Py_ssize_t count = n1 - n0 < threads ? n1 - n0 : threads;
    if (count < 1) count = 1;
    Py_ssize_t span = span_r;
    float *acc = PyMem_RawMalloc((size_t)(span * count) * sizeof(float));
    if (acc == NULL) {
        PyBuffer_Release(&bx); PyBuffer_Release(&bw); PyBuffer_Release(&bo);
        if (has_b) PyBuffer_Release(&bb);
        return PyErr_NoMemory();
    }
    void (*kern)(const float *, const float *, const float *, float *, const Py_ssize_t *,
                 float *) = (KERN == &K_generic || !HAS_AVX2) ? conv_chains_generic
                                                                : CONV_CHAINS_FAST;
#if defined(HAVE_FMA_VARIANT)
    USE_CHUNK_AVX2 = kern == conv_chains_generic ? 0
                     : __builtin_cpu_supports("avx512f") ? 2 : 1;
#endif
    ConvCtx ctx = {kern, bx.buf, bw.buf, has_b ? bb.buf : NULL, bo.buf, d, acc, span, count};
    Py_BEGIN_ALLOW_THREADS
    pool_run(conv_part, &ctx, count, (int)count);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(acc);
    PyBuffer_Release(&bx); PyBuffer_Release(&bw); PyBuffer_Release(&bo);
    if (has_b) PyBuffer_Release(&bb);
    return PyLong_FromLong(0);
}

/* ------------------------------------------------------------------ exported: filter gradient */
/* conv_wgrad_chains_f32(xp, gt, out, dims, bounds) -> 0: oneDNN's backward-weights chains of
 * each thread's part (bounds: q0, q1 of each, out[part] its sums; the parts on the intra-op pool) (gradrepl/torch/nn/_onednn_conv.py conv_backward_weights, whose numpy chains
 * are the reference): out[(c * KH + kh) * KW + kw, o] = one fused multiply-add chain from +0 over
 * the flat output positions q in [q0, q1) of (sample, row, column), in order, of gt[q, o] and
 * xp[n, c, y * sh + kh * dh, x * sw + kw * dw] (the padded input: its zeros are terms, exact).
 * xp (N, C, Hp, Wp), gt (N * OH * OW, O), out (parts, C * KH * KW, O) C-contiguous float32;
 * dims a tuple of 12 ints (below); finite inputs (the caller checks). The GIL is released. */
#define WG_KB 4
ALWAYS_INLINE void wgrad_body(const float *X, const float *G, float *OUT, const Py_ssize_t *d)
{
    Py_ssize_t C = d[0], Hp = d[1], Wp = d[2], O = d[3], OH = d[4], OW = d[5], KH = d[6],
               KW = d[7], sh = d[8], sw = d[9], dh = d[10], dw = d[11], q0 = d[12], q1 = d[13];
    Py_ssize_t KC = C * KH * KW;
    for (Py_ssize_t i = 0; i < KC * O; i++) OUT[i] = 0.0f;
    for (Py_ssize_t k0 = 0; k0 < KC; k0 += WG_KB) {
        Py_ssize_t kb = KC - k0 < WG_KB ? KC - k0 : WG_KB;
        Py_ssize_t xoff[WG_KB];
        for (Py_ssize_t j = 0; j < kb; j++) {
            Py_ssize_t kc = k0 + j, c = kc / (KH * KW), kh = (kc / KW) % KH, kw = kc % KW;
            xoff[j] = c * Hp * Wp + kh * dh * Wp + kw * dw;
        }
        float *acc = OUT + k0 * O;
        Py_ssize_t n = q0 / (OH * OW), y = (q0 / OW) % OH, x = q0 % OW;
        for (Py_ssize_t q = q0; q < q1; q++) {
            const float *gq = G + q * O;
            const float *xq = X + n * C * Hp * Wp + y * sh * Wp + x * sw;
            for (Py_ssize_t j = 0; j < kb; j++) {
                float xv = xq[xoff[j]];
                float *a = acc + j * O;
                for (Py_ssize_t o = 0; o < O; o++) a[o] = fmaf(gq[o], xv, a[o]);
            }
            if (++x == OW) { x = 0; if (++y == OH) { y = 0; n++; } }
        }
    }
}
VECTORISE static void wgrad_generic(const float *X, const float *G, float *O, const Py_ssize_t *d)
{ wgrad_body(X, G, O, d); }
#ifdef HAVE_FMA_VARIANT
VECTORISE __attribute__((target("avx2,fma"))) static void wgrad_avx2(const float *X,
    const float *G, float *O, const Py_ssize_t *d)
{ wgrad_body(X, G, O, d); }
/* O = 8 or 16: the sums of four weights in registers through the chain */
__attribute__((target("avx2,fma"))) static void wgrad_avx2_regs(const float *X, const float *G,
                                                                 float *OUT, const Py_ssize_t *d)
{
    Py_ssize_t C = d[0], Hp = d[1], Wp = d[2], O = d[3], OH = d[4], OW = d[5], KH = d[6],
               KW = d[7], sh = d[8], sw = d[9], dh = d[10], dw = d[11], q0 = d[12], q1 = d[13];
    Py_ssize_t KC = C * KH * KW;
    int two = O == 16;
    for (Py_ssize_t i = 0; i < KC * O; i++) OUT[i] = 0.0f;
    for (Py_ssize_t k0 = 0; k0 < KC; k0 += WG_KB) {
        Py_ssize_t kb = KC - k0 < WG_KB ? KC - k0 : WG_KB;
        Py_ssize_t xoff[WG_KB];
        for (Py_ssize_t j = 0; j < WG_KB; j++) {
            Py_ssize_t kc = k0 + (j < kb ? j : 0), c = kc / (KH * KW), kh = (kc / KW) % KH,
                       kw = kc % KW;
            xoff[j] = c * Hp * Wp + kh * dh * Wp + kw * dw;
        }
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0,
               b3 = a0;
        Py_ssize_t n = q0 / (OH * OW), y = (q0 / OW) % OH, x = q0 % OW;
        for (Py_ssize_t q = q0; q < q1; q++) {
            const float *gq = G + q * O;
            const float *xq = X + n * C * Hp * Wp + y * sh * Wp + x * sw;
            __m256 g0 = _mm256_loadu_ps(gq);
            __m256 x0 = _mm256_set1_ps(xq[xoff[0]]), x1 = _mm256_set1_ps(xq[xoff[1]]),
                   x2 = _mm256_set1_ps(xq[xoff[2]]), x3 = _mm256_set1_ps(xq[xoff[3]]);
            a0 = _mm256_fmadd_ps(g0, x0, a0); a1 = _mm256_fmadd_ps(g0, x1, a1);
            a2 = _mm256_fmadd_ps(g0, x2, a2); a3 = _mm256_fmadd_ps(g0, x3, a3);
            if (two) {
                __m256 g1 = _mm256_loadu_ps(gq + 8);
                b0 = _mm256_fmadd_ps(g1, x0, b0); b1 = _mm256_fmadd_ps(g1, x1, b1);
                b2 = _mm256_fmadd_ps(g1, x2, b2); b3 = _mm256_fmadd_ps(g1, x3, b3);
            }
            if (++x == OW) { x = 0; if (++y == OH) { y = 0; n++; } }
        }
        float tmp[WG_KB][16];
        _mm256_storeu_ps(tmp[0], a0); _mm256_storeu_ps(tmp[1], a1);
        _mm256_storeu_ps(tmp[2], a2); _mm256_storeu_ps(tmp[3], a3);
        _mm256_storeu_ps(tmp[0] + 8, b0); _mm256_storeu_ps(tmp[1] + 8, b1);
        _mm256_storeu_ps(tmp[2] + 8, b2); _mm256_storeu_ps(tmp[3] + 8, b3);
        for (Py_ssize_t j = 0; j < kb; j++)
            for (Py_ssize_t o = 0; o < O; o++) OUT[(k0 + j) * O + o] = tmp[j][o];
    }
}
#endif

typedef struct {
    void (*kern)(const float *, const float *, float *, const Py_ssize_t *);
    const float *x, *g;
    float *out;
    const Py_ssize_t *d, *bounds;
    Py_ssize_t size;
} WgradCtx;

static void wgrad_part(void *p, Py_ssize_t i)
{
    WgradCtx *c = p;
    Py_ssize_t d[14];
    memcpy(d, c->d, sizeof d);
    d[12] = c->bounds[2 * i];
    d[13] = c->bounds[2 * i + 1];
    c->kern(c->x, c->g, c->out + i * c->size, d);
}

static PyObject *py_conv_wgrad_chains_f32(PyObject *self, PyObject *const *args,
                                          Py_ssize_t nargs)
{
    Py_ssize_t d[14];
    if (nargs != 5) { PyErr_SetString(PyExc_TypeError, "conv_wgrad_chains_f32 takes 5 arguments"); return NULL; }
    if (read_dims(args[3], d, 12, "conv_wgrad_chains_f32") < 0) return NULL;
    if (!PyTuple_Check(args[4]) || PyTuple_GET_SIZE(args[4]) % 2 ||
            PyTuple_GET_SIZE(args[4]) < 2 || PyTuple_GET_SIZE(args[4]) > 128) {
        PyErr_SetString(PyExc_ValueError, "conv_wgrad_chains_f32: bounds (q0, q1, ...)");
        return NULL;
    }
    Py_ssize_t parts = PyTuple_GET_SIZE(args[4]) / 2, bounds[128];
    if (read_dims(args[4], bounds, 2 * parts, "conv_wgrad_chains_f32") < 0) return NULL;
    Py_ssize_t q0 = 0, q1 = 0;
    for (Py_ssize_t i = 0; i < parts; i++) {
        if (bounds[2 * i] < 0 || bounds[2 * i + 1] < bounds[2 * i]) q1 = -1;
        if (q1 >= 0 && bounds[2 * i + 1] > q1) q1 = bounds[2 * i + 1];
    }
    d[12] = q0; d[13] = q1 < 0 ? 0 : q1;
    if (q1 < 0) { PyErr_SetString(PyExc_ValueError, "conv_wgrad_chains_f32: bad bounds"); return NULL; }
    Py_ssize_t C = d[0], Hp = d[1], Wp = d[2], O = d[3], OH = d[4], OW = d[5], KH = d[6],
               KW = d[7];
    for (int i = 0; i < 14; i++)
        if (d[i] < 0) { PyErr_SetString(PyExc_ValueError, "conv_wgrad_chains_f32: negative"); return NULL; }
    if (OH < 1 || OW < 1 || KH < 1 || KW < 1 || d[8] < 1 || d[9] < 1 || d[10] < 1 || d[11] < 1
            || q1 < q0 || (OH - 1) * d[8] + (KH - 1) * d[10] >= Hp
            || (OW - 1) * d[9] + (KW - 1) * d[11] >= Wp) {
        PyErr_SetString(PyExc_ValueError, "conv_wgrad_chains_f32: geometry out of range"); return NULL;
    }
    Py_ssize_t nmax = (q1 + OH * OW - 1) / (OH * OW);
    Py_buffer bx, bg, bo;
    if (f32_buffer(args[0], &bx, 0, nmax * C * Hp * Wp, "conv_wgrad_chains_f32") < 0) return NULL;
    if (f32_buffer(args[1], &bg, 0, q1 * O, "conv_wgrad_chains_f32") < 0) {
        PyBuffer_Release(&bx); return NULL;
    }
    if (f32_buffer(args[2], &bo, 1, parts * C * KH * KW * O, "conv_wgrad_chains_f32") < 0) {
        PyBuffer_Release(&bx); PyBuffer_Release(&bg); return NULL;
    }
    int fast = !(KERN == &K_generic || !HAS_AVX2);
    void (*kern)(const float *, const float *, float *, const Py_ssize_t *) = wgrad_generic;
#ifdef HAVE_FMA_VARIANT
    if (fast) kern = (O == 8 || O == 16) ? wgrad_avx2_regs : wgrad_avx2;
#endif
    WgradCtx ctx = {kern, bx.buf, bg.buf, bo.buf, d, bounds, C * KH * KW * O};
    Py_BEGIN_ALLOW_THREADS
    pool_run(wgrad_part, &ctx, parts, (int)parts);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bx); PyBuffer_Release(&bg); PyBuffer_Release(&bo);
    return PyLong_FromLong(0);
}

/* ------------------------------------------------------------------ exported: ReLU's gradient */
/* threshold_grad_f32(grad, self, threshold, out) -> 0: out = self <= threshold ? +0 : grad
 * (torch's threshold_backward: grad's bits kept, a NaN self keeps grad), four C-contiguous
 * float32 buffers of one length; the GIL released. */
ALWAYS_INLINE void threshold_grad_body(const float *g, const float *x, float t, float *o,
                                       Py_ssize_t n)
{
    const uint32_t *gu = (const uint32_t *)g;
    uint32_t *ou = (uint32_t *)o;
    for (Py_ssize_t i = 0; i < n; i++) ou[i] = x[i] <= t ? 0u : gu[i];
}
VECTORISE static void threshold_grad_generic(const float *g, const float *x, float t, float *o,
                                             Py_ssize_t n)
{ threshold_grad_body(g, x, t, o, n); }
#ifdef HAVE_FMA_VARIANT
VECTORISE __attribute__((target("avx2,fma"))) static void threshold_grad_avx2(
    const float *g, const float *x, float t, float *o, Py_ssize_t n)
{ threshold_grad_body(g, x, t, o, n); }
#endif

static PyObject *py_threshold_grad_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) { PyErr_SetString(PyExc_TypeError, "threshold_grad_f32 takes 4 arguments"); return NULL; }
    double t = PyFloat_AsDouble(args[2]);
    if (t == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer bg, bx, bo;
    if (f32_buffer(args[0], &bg, 0, 0, "threshold_grad_f32") < 0) return NULL;
    Py_ssize_t n = bg.len / 4;
    if (f32_buffer(args[1], &bx, 0, n, "threshold_grad_f32") < 0) { PyBuffer_Release(&bg); return NULL; }
    if (f32_buffer(args[3], &bo, 1, n, "threshold_grad_f32") < 0) {
        PyBuffer_Release(&bg); PyBuffer_Release(&bx); return NULL;
    }
    if (bx.len != bg.len || bo.len != bg.len) {
        PyBuffer_Release(&bg); PyBuffer_Release(&bx); PyBuffer_Release(&bo);
        PyErr_SetString(PyExc_ValueError, "threshold_grad_f32: buffers of one length");
        return NULL;
    }
    void (*kern)(const float *, const float *, float, float *, Py_ssize_t) = threshold_grad_generic;
#ifdef HAVE_FMA_VARIANT
    if (!(KERN == &K_generic || !HAS_AVX2)) kern = threshold_grad_avx2;
#endif
    Py_BEGIN_ALLOW_THREADS
    kern(bg.buf, bx.buf, (float)t, bo.buf, n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bg); PyBuffer_Release(&bx); PyBuffer_Release(&bo);
    return PyLong_FromLong(0);
}

/* ------------------------------------------------------------------ exported: one BLAS call */
/* blas_gemm(gemm, local, double, ta, tb, m, n, k, a, lda, b, ldb, out, ldc, field) -> None:
 * out = a @ b as torch's cpublas::gemm calls MKL (column-major, alpha 1, beta 0), through the
 * function pointers gradrepl's ctypes loader found in libmkl_rt (torch/_gemm.py): ``gemm`` the
 * address of cblas_sgemm (double 0) or cblas_dgemm (1), ``local`` MKL_Set_Num_Threads_Local's
 * (0: MKL's thread count kept), set to 1 around the product and put back. a, b, out are numpy
 * arrays whose data pointer sits ``field`` bytes into the object (engine/mkl.py's DATA_FIELD,
 * checked there on probe arrays); the caller checked the layout (_gemm.torch_layout). The same
 * calls the ctypes path made, in one Python call instead of three. */
typedef void (*gemm_f32_fn)(int, int, int, int, int, int, float, const float *, int,
                            const float *, int, float, float *, int);
typedef void (*gemm_f64_fn)(int, int, int, int, int, int, double, const double *, int,
                            const double *, int, double, double *, int);
typedef int (*threads_local_fn)(int);

static void *array_data(PyObject *o, Py_ssize_t field)
{
    if (Py_TYPE(o)->tp_basicsize < field + (Py_ssize_t)sizeof(void *)) return NULL;
    return *(void **)((char *)o + field);
}

static PyObject *py_blas_gemm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const int ints[] = {2, 3, 4, 5, 6, 7, 9, 11, 13};   /* the int arguments */
    long v[16];
    if (nargs != 15) {
        PyErr_SetString(PyExc_TypeError, "blas_gemm takes 15 arguments");
        return NULL;
    }
    void *gemm = PyLong_AsVoidPtr(args[0]);
    void *local = PyLong_AsVoidPtr(args[1]);
    Py_ssize_t field = PyLong_AsSsize_t(args[14]);
    for (int i = 0; i < 9; i++) v[ints[i]] = PyLong_AsLong(args[ints[i]]);
    if (PyErr_Occurred()) return NULL;
    void *a = array_data(args[8], field), *b = array_data(args[10], field),
         *c = array_data(args[12], field);
    if (!gemm || !a || !b || !c || field <= 0) {
        PyErr_SetString(PyExc_ValueError, "blas_gemm: no function or no array data");
        return NULL;
    }
    int ta = (int)v[3], tb = (int)v[4], m = (int)v[5], n = (int)v[6], k = (int)v[7];
    int lda = (int)v[9], ldb = (int)v[11], ldc = (int)v[13];
    Py_BEGIN_ALLOW_THREADS
    int prev = 0;
    if (local) prev = ((threads_local_fn)local)(1);
    if (v[2])
        ((gemm_f64_fn)gemm)(102, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
    else
        ((gemm_f32_fn)gemm)(102, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
    if (local) ((threads_local_fn)local)(prev);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
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
    {"variant", (PyCFunction)(void (*)(void))py_variant, METH_FASTCALL,
     "variant([name]) -> the float32 kernels' build that runs (generic, fma); with a name, pick it"},
    {"nll_reduce", (PyCFunction)(void (*)(void))py_nll_reduce, METH_FASTCALL,
     "nll_reduce(x, target, weight, ignore_index, mean) -> the loss, or None (not computed)"},
    {"nll_grad", (PyCFunction)(void (*)(void))py_nll_grad, METH_FASTCALL,
     "nll_grad(hot, target, weight, ignore_index, g, mean) -> 0, or 1 (nothing written)"},
    {"tanh_grad_f32", (PyCFunction)(void (*)(void))py_tanh_grad_f32, METH_FASTCALL,
     "tanh_grad_f32(out, dout, res) -> 0, or 1 (a nan: res not to be used)"},
    {"add_rows", (PyCFunction)(void (*)(void))py_add_rows, METH_FASTCALL,
     "add_rows(out, idx, g) -> 0, or 1 (nothing done): np.add.at(out, (idx,), g), in order"},
    {"column_sums", (PyCFunction)(void (*)(void))py_column_sums, METH_FASTCALL,
     "column_sums(a, out, lanes) -> 0, or 1 (nothing written): a's sums over axis 0 (torch's)"},
    {"var_columns_f32", (PyCFunction)(void (*)(void))py_var_columns_f32, METH_FASTCALL,
     "var_columns_f32(x, out, correction, root) -> 0, or 1 (not finite: nothing written)"},
    {"fma_f32", (PyCFunction)(void (*)(void))py_fma_f32, METH_FASTCALL,
     "fma_f32(a, b, c, out) -> 0, or 1 (not finite: out not to be used): fmaf of each"},
    {"conv_chains_f32", (PyCFunction)(void (*)(void))py_conv_chains_f32, METH_FASTCALL,
     "conv_chains_f32(x, w, bias, out, dims, threads) -> 0: oneDNN's direct convolution sums"},
    {"conv_wgrad_chains_f32", (PyCFunction)(void (*)(void))py_conv_wgrad_chains_f32,
     METH_FASTCALL, "conv_wgrad_chains_f32(xp, gt, out, dims, bounds) -> 0: per-thread filter sums"},
    {"threshold_grad_f32", (PyCFunction)(void (*)(void))py_threshold_grad_f32, METH_FASTCALL,
     "threshold_grad_f32(grad, self, threshold, out) -> 0: self <= threshold ? +0 : grad"},
    {"blas_gemm", (PyCFunction)(void (*)(void))py_blas_gemm, METH_FASTCALL,
     "blas_gemm(gemm, local, double, ta, tb, m, n, k, a, lda, b, ldb, out, ldc, field) -> None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cnative",
    "gradrepl's optional native kernels (see gradrepl/engine/_native.py)", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cnative(void)
{
    pick_kernels();
    pthread_atfork(NULL, NULL, pool_after_fork);
    return PyModule_Create(&module);
}
