"""``paddle.linalg``: the linear-algebra functions, gathered from the API modules.

The names are Paddle 3.3.1's ``paddle.linalg``; under a 2.x profile only those Paddle 2.6 had
(``api26.LINALG``) exist.
"""
from . import api26 as _api26
from . import profiles as _profiles

NAMES = ('cholesky', 'cholesky_inverse', 'cholesky_solve', 'cond', 'corrcoef', 'cov', 'cross', 'det', 'diagonal', 'eig', 'eigh', 'eigvals', 'eigvalsh', 'fp8_fp8_half_gemm_fused', 'householder_product', 'inv', 'lstsq', 'lu', 'lu_solve', 'lu_unpack', 'matmul', 'matrix_exp', 'matrix_norm', 'matrix_power', 'matrix_rank', 'matrix_transpose', 'multi_dot', 'norm', 'ormqr', 'pca_lowrank', 'pinv', 'qr', 'slogdet', 'solve', 'svd', 'svd_lowrank', 'svdvals', 'triangular_solve', 'vecdot', 'vector_norm')


def _modules():
    from .tensor import linalg, linalg_ext, manipulation_ext, reduce

    return (linalg_ext, linalg, reduce, manipulation_ext)


def __getattr__(name):
    if name in NAMES and (_profiles.current().api3 or name in _api26.LINALG):
        for mod in _modules():
            fn = getattr(mod, name, None)
            if fn is not None and callable(fn):
                return fn
    raise AttributeError(f"module 'paddle.linalg' has no attribute {name!r}")


def __dir__():
    return sorted(n for n in NAMES if _profiles.current().api3 or n in _api26.LINALG)


from . import complex_kernels as _complex_kernels  # noqa: E402

_complex_kernels.install(list(_modules()), None)   # (the functions __getattr__ serves)
from .names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
