"""Paddle's CPU linalg kernels bit for bit (PSWEEP3, issue 28): each expectation is a digest of
what real Paddle 3.3.1 (/work/vpaddle) and 2.6.2 (/work/vpaddle26) computed on this machine for
the same inputs (both versions printed the same digests unless a test says otherwise)."""
import hashlib

import numpy as np

import gradrepl.paddle as paddle


def _h(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_float64_det_inverse_solve_are_eigens_unblocked_lu(version):
    # Paddle's det, inverse and solve are Eigen's PartialPivLU in float64 as in float32 (plain
    # multiply and subtract, no fused steps): numpy's LAPACK differed in last bits
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 5, 5)) + 2 * np.eye(5)
    b = rng.standard_normal((2, 5, 3))
    w = rng.standard_normal((2,))
    x = paddle.to_tensor(a, stop_gradient=False)
    d = paddle.linalg.det(x)
    inv = paddle.linalg.inv(x)
    s = paddle.linalg.solve(x, paddle.to_tensor(b))
    (d * paddle.to_tensor(w)).sum().backward()
    assert (_h(d), _h(x.grad), _h(inv), _h(s)) == (
        "7eb0271041e8b4ee", "e8517d1f73d1e14e", "2b9a1560d20e1a7d", "04a3dea5004da690")


# real 3.3.1 / 2.6.2 digests of multi_dot (3 and 4 matrices), inner and outer: per dtype
# [r3, r4, a.grad, b.grad, c.grad, d.grad, inner, x.grad, y.grad, outer, x.grad, y.grad]
_CHAIN_REAL = {
    "3": ['0d1928c2d0ca45c2', '5ca61374f119311d', '5a8f8dcb9823dc54', 'e4165e1b2295ea9e',
          '88ab33055f6198a4', '9b0e126a0cb2852e', 'f0ac64f35dc6cd07', '9bd29df54785b708',
          'a8281bad6699e5ce', '6622edcdcd05218c', '8f1e8a56934e0d89', 'b725947eedc3bcbe',
          '1f01461679a459f5', '8eac63950db8a283', 'cebe8ff6c9342f06', '36a3d935b5affc66',
          '8453847cca183936', '8cc5f01bef9ca2b4', '660e9b5c18c5286b', 'c910bcf2e3034b6f',
          '63e70f3b7ad7e2b5', '467ee71ac2fa1380', '7e1014bc9d12e07b', 'bcd905eab183a95f'],
    "2.6": ['0d1928c2d0ca45c2', '5ca61374f119311d', '5a8f8dcb9823dc54', 'e4165e1b2295ea9e',
            '88ab33055f6198a4', '9b0e126a0cb2852e', 'f0ac64f35dc6cd07', '9bd29df54785b708',
            'a8281bad6699e5ce', '6622edcdcd05218c', '21ae460854072d6b', '8f6634ab30da7a06',
            '1f01461679a459f5', '8eac63950db8a283', 'cebe8ff6c9342f06', '36a3d935b5affc66',
            '8453847cca183936', '8cc5f01bef9ca2b4', '8f33a26acc1094fd', '30469955fcdc6f67',
            '63e70f3b7ad7e2b5', '467ee71ac2fa1380', '36e6a906ab353fe8', '576a0d995ccde28a'],
}


def test_multi_dot_order_inner_and_outer_products(version):
    # multi_dot groups by its kernel's cost rule / matrix-chain order (was left to right);
    # 3.x's inner passes y with matmul's transpose flag, 2.x's transposes it; 2.x's outer is
    # matmul, 3.x's multiply
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("multi_dot/inner/outer digests (MKL's GEMMs: their sums follow its "
                         "code path)")
    rng = np.random.default_rng(11)
    out = []
    for dt in ["float32", "float64"]:
        a, b, c, d = (paddle.to_tensor(rng.standard_normal(s).astype(dt), stop_gradient=False)
                      for s in [(2, 5), (5, 7), (7, 3), (3, 4)])
        r3 = paddle.linalg.multi_dot([a, b, c])
        r4 = paddle.linalg.multi_dot([a, b, c, d])
        (r3 * paddle.to_tensor(rng.standard_normal((2, 3)).astype(dt))).sum().backward()
        (r4 * paddle.to_tensor(rng.standard_normal((2, 4)).astype(dt))).sum().backward()
        out += [_h(r3), _h(r4), _h(a.grad), _h(b.grad), _h(c.grad), _h(d.grad)]
        x = paddle.to_tensor(rng.standard_normal((3, 40)).astype(dt), stop_gradient=False)
        y = paddle.to_tensor(rng.standard_normal((5, 40)).astype(dt), stop_gradient=False)
        r = paddle.inner(x, y)
        (r * paddle.to_tensor(rng.standard_normal((3, 5)).astype(dt))).sum().backward()
        out += [_h(r), _h(x.grad), _h(y.grad)]
        x = paddle.to_tensor(rng.standard_normal(6).astype(dt), stop_gradient=False)
        y = paddle.to_tensor(rng.standard_normal(9).astype(dt), stop_gradient=False)
        r = paddle.outer(x, y)
        (r * paddle.to_tensor(rng.standard_normal((6, 9)).astype(dt))).sum().backward()
        out += [_h(r), _h(x.grad), _h(y.grad)]
    want = list(_CHAIN_REAL[version])
    if version == "2.6":   # float64 (6, 9) @ (9, 1): Paddle's older MKL-ML dgemm, not emulated
        out[22] = want[22] = None
    assert out == want


def test_triangular_solve_and_qr_gradient_are_mkl_trsm_on_intel(version):
    # Paddle's BatchedTRSM is its MKL's ?trsm (row-major, left); on Intel the mkl wheel's
    # cblas_?trsm gives its bits (was numpy's solve); triangular_solve_grad's dX is one product
    # with the transpose flag, negated, then tril/triu with unitriangular as the offset; qr's
    # gradient solves with the same kernel
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("triangular_solve / qr gradient digests (MKL's ?trsm)")
    rng = np.random.default_rng(21)
    out = []
    for dt in ["float32", "float64"]:
        for upper, tr, unit in [(False, False, False), (True, True, False), (False, True, True)]:
            a = rng.standard_normal((2, 6, 6)) + 3 * np.eye(6)
            x = paddle.to_tensor(a.astype(dt), stop_gradient=False)
            y = paddle.to_tensor(rng.standard_normal((2, 6, 3)).astype(dt), stop_gradient=False)
            r = paddle.linalg.triangular_solve(x, y, upper=upper, transpose=tr, unitriangular=unit)
            (r * paddle.to_tensor(rng.standard_normal((2, 6, 3)).astype(dt))).sum().backward()
            out += [_h(r), _h(x.grad), _h(y.grad)]
        x = paddle.to_tensor(rng.standard_normal((7, 4)).astype(dt), stop_gradient=False)
        q, r = paddle.linalg.qr(x)
        ((q * paddle.to_tensor(rng.standard_normal((7, 4)).astype(dt))).sum()
         + (r * paddle.to_tensor(rng.standard_normal((4, 4)).astype(dt))).sum()).backward()
        out += [_h(q), _h(r), _h(x.grad)]
    # real 3.3.1 and 2.6.2 (the same)
    assert out == [
        'bbff0b92ce5a2cd2', '5aa1bb8f842c3131', '485ecb2c4201b427', 'f3e3524d1c5e6015',
        'b5c734cf26c74150', 'da446199222f4072', '8bb2422713e4da5e', '01d3c07510478620',
        '2f36e619d269a934', '996e892319f7d950', '25e75ef17b11712c', '5aad5992f5a1a155',
        '0de6d12e3aa44fa2', '4a6f1e100b07717d', 'f3ba8efb59151b8a', '9cf43f0b91a85282',
        'e0efd92637182b98', 'afb5e575721b2314', '3e90ebe71e29fa60', '4fc1663810c241da',
        '9781915ff5031d09', '8f9eccaf7621b165', '6a26ea947144f580', '73c53b9920425628']


def test_cholesky_gradient_is_paddles_kernel(version):
    # cholesky_grad: phi = L^T gL (transpose flag), tril with the diagonal halved, L^-1 by MKL's
    # ?trsm of the identity, (L^-1)^T phi L^-1, then (g + g^T) * 0.5 (was the engine's
    # formula with two triangular solves)
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("cholesky gradient digests (MKL's ?trsm and GEMMs)")
    rng = np.random.default_rng(31)
    out = []
    for dt in ["float32", "float64"]:
        for upper, shape in [(False, (3, 6, 6)), (True, (9, 9))]:
            a = rng.standard_normal(shape)
            a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
            x = paddle.to_tensor(a.astype(dt), stop_gradient=False)
            c = paddle.linalg.cholesky(x, upper=upper)
            (c * paddle.to_tensor(rng.standard_normal(shape).astype(dt))).sum().backward()
            out += [_h(c), _h(x.grad)]
    # real 3.3.1 and 2.6.2 (the same)
    assert out == ['c4e792f624e41d9e', '9b56dda370699829', '7c893b6136c8c6ae', '7ba6b327da4c40f4',
                   '288b9c47c23d1207', '6b99efa5cde5ea7e', '56306206a2d5ed5a', 'e2eefe94de8cacb9']


# real 3.3.1 and 2.6.2 (the same): (n, stop_gradient, out, x.grad) per dtype float32, float64
_POWER_REAL = [
    (0, False, '59160118b6ec92c7', '38723a2e5e8a17aa'),
    (1, False, 'f170cedd299a56d4', 'd218bc4bdcd2bb73'),
    (2, False, '1e0e47317d9eab81', '8161f6db7c5e9a92'),
    (3, False, '816181a1bd055b27', '7c132586eab0b980'),
    (4, False, 'a35411f92e1ed850', 'a87d92eea44f6cfc'),
    (5, False, '97842e1bad2b86e4', '25bab39855829dad'),
    (7, False, '7e13292c7b5623e9', 'a55064d1618f5f54'),
    (-1, False, '3d39e447a8120773', 'd585e8640de7f973'),
    (-2, False, '418dc8ef7fb0f98f', '8bd60d3bc1ad142a'),
    (-3, False, 'cafea964ee5dbc09', 'efb06640a78721d5'),
    (0, False, 'c020c636a4e9d07d', '5341e6b2646979a7'),
    (1, False, '9bf451bb348e868a', 'cd026ac96fa613e4'),
    (2, False, 'ff94950d5eb0bd79', '42740dec6d4875bb'),
    (3, False, 'd189aa8821f3c48c', 'f6ccfbd32020e358'),
    (4, False, '28720400dfba30aa', '2c886edad7ad1c70'),
    (5, False, 'bb8aa72792ab0e37', 'e6af7e82b1fd5c17'),
    (7, False, '602f7ea468a06fb8', '1980113198f7dc3b'),
    (-1, False, '31b5068145771d55', 'be1767cd487a8725'),
    (-2, False, '7ea39be24ad252dd', 'a5b043b2da7d5906'),
    (-3, False, '275f9b8955c48f5d', '88f5a78580150f79')]


def test_matrix_power_is_paddles_kernel(version):
    # matrix_power's own kernel: (XX)(XX) for 4, squaring past 4, the inverse's power for
    # n < 0 (Eigen's LU); its gradient kernel's sums of X^i^T g X^j^T (was matmul's chain rule)
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("matrix_power digests (MKL's GEMMs)")
    rng = np.random.default_rng(41)
    out = []
    for dt in ["float32", "float64"]:
        for n in [0, 1, 2, 3, 4, 5, 7, -1, -2, -3]:
            a = (rng.standard_normal((2, 4, 4)) * 0.5 + np.eye(4)).astype(dt)
            x = paddle.to_tensor(a, stop_gradient=False)
            r = paddle.linalg.matrix_power(x, n)
            (r * paddle.to_tensor(rng.standard_normal((2, 4, 4)).astype(dt))).sum().backward()
            out.append((n, r.stop_gradient, _h(r), _h(x.grad)))
    assert out == _POWER_REAL
    assert r.grad_fn.name() == "MatrixPowerGradNode"



def test_eigh_and_eigvalsh_gradients_are_paddles_kernels(version):
    # eigh_grad: R = tV gV, (R - R^T) * 0.5, / (w_j - w_i), DiagFill with gw.flat[col] (the
    # first matrix's gw on every diagonal of a batch); eigvalsh_grad: (V * tile(gw.flat)) @ tV
    # (a batch's rows take the flat vector tiled, as Paddle's Eigen broadcast does)
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("eigh/eigvalsh gradient digests (MKL's GEMMs, reference LAPACK)")
    rng = np.random.default_rng(51)
    out = []
    for dt in ["float32", "float64"]:
        for use in ["both", "w", "v", "valsh"]:
            a = rng.standard_normal((3, 5, 5))
            a = (a @ np.swapaxes(a, -1, -2) + 5 * np.eye(5)).astype(dt)
            x = paddle.to_tensor(a, stop_gradient=False)
            if use == "valsh":
                w = paddle.linalg.eigvalsh(x)
                loss = (w * paddle.to_tensor(rng.standard_normal((3, 5)).astype(dt))).sum()
                out.append(w.grad_fn.name())
            else:
                w, v = paddle.linalg.eigh(x, UPLO="U" if use == "w" else "L")
                lw = (w * paddle.to_tensor(rng.standard_normal((3, 5)).astype(dt))).sum()
                lv = (v * paddle.to_tensor(rng.standard_normal((3, 5, 5)).astype(dt))).sum()
                loss = {"both": lw + lv, "w": lw, "v": lv}[use]
            loss.backward()
            out += [_h(w), _h(x.grad)]
    # real 3.3.1 and 2.6.2 (the same)
    assert out == [
        '2115f54d3c3d71eb', '4dd045c8af21e4fb', 'e2e096292711b3b5', '82daa4394a24521c',
        'd9356d254746346f', 'ae4df2c3446e7764', 'EigvalshGradNode', '3f162f2af025742c',
        '38170fdd2fb90eba', '84345bce40fc9166', 'f21e2cab88985e79', 'a94e644e277e93dd',
        'de318dd83be4f417', '039db9dcddc301bf', '1c1c225d0c4140df', 'EigvalshGradNode',
        'c4411ebf91d70d40', 'd15a060c92603d42']


def test_lstsq_solution_has_no_gradient(version):
    # real 3.3.1 and 2.6.2: lstsq's solution stops the gradient even for inputs that do not
    # (gradrepl computed it as pinv(x) @ y then: other values and a gradient)
    x = paddle.to_tensor(np.arange(10.0).reshape(5, 2) ** 0.5, stop_gradient=False)
    y = paddle.to_tensor(np.ones((5, 2)), stop_gradient=False)
    s = paddle.linalg.lstsq(x, y)[0]
    assert s.stop_gradient is True and s.grad_fn is None


def test_trace_adds_the_diagonal_in_order(version):
    # real 3.3.1 / 2.6.2: float32 (8, 11) trace 0x304b39c0 (bytes), a batch of float64 17x17
    # diagonals as below; the packet sum of a whole-tensor reduction gave other last bits
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((8, 11)).astype("float32"))
    assert paddle.trace(x).numpy().tobytes().hex() == "304b39c0"
    y = paddle.to_tensor(np.random.default_rng(2).standard_normal((3, 17, 17)))
    assert paddle.trace(y, axis1=1, axis2=2).numpy().tobytes().hex() == (
        "7cd28a67992ff8bf2f81a43f73bd22c0e0a7e189fd31bf3f")


def test_cond_of_one_by_one_matrices_has_a_zero_gradient(version):
    # cond = max(s) / min(s): the singular value's gradients cancel to zero; svd's gradient of
    # no term was shape [1] (GradShapeError). Real 3.3.1 / 2.6.2: +0.0 of x's shape
    for shape in [(1, 1), (2, 1, 1)]:
        x = paddle.to_tensor(np.full(shape, 3.0, "float32"), stop_gradient=False)
        c = paddle.linalg.cond(x)
        c.sum().backward()
        assert x.grad.shape == list(shape) and x.grad.numpy().tobytes() == bytes(4 * x.size)



def test_solve_gradient_and_broadcast_right_hand_side(version):
    # solve_grad: dX = -(dY Out^T) with Out passed with the transpose flag (was a transposed
    # copy: float64 last bits); y of shape x.shape[:-1] is a vector, any other (3, 3) with a
    # (2, 3, 3) x a broadcast matrix (was taken for a vector: ValueError)
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("solve gradient digests (MKL's GEMMs)")
    rng = np.random.default_rng(61)
    out = []
    for dt in ["float32", "float64"]:
        for ashape, bshape in [((3, 4, 4), (3, 4, 2)), ((5, 5), (5,)), ((2, 3, 3), (3, 3))]:
            a = rng.standard_normal(ashape) + 2 * np.eye(ashape[-1])
            x = paddle.to_tensor(a.astype(dt), stop_gradient=False)
            y = paddle.to_tensor(rng.standard_normal(bshape).astype(dt), stop_gradient=False)
            r = paddle.linalg.solve(x, y)
            (r * paddle.to_tensor(rng.standard_normal(r.shape).astype(dt))).sum().backward()
            out += [_h(r), _h(x.grad), _h(y.grad)]
    # real 3.3.1 and 2.6.2 (the same)
    assert out == [
        '066f616d211f9154', 'c0e63e93bd78e249', 'c35255649193f664', 'caefab4b6565df03',
        'b7deab76c6f85e76', '1f6b0c1a0f214f69', '46c23eab3595dc29', '83665fbe94ecc380',
        '3f19ac23f3177e58', '9a39477e8dc830bc', '2a2342c6a3669760', '2b491c3696e546c4',
        'fcf8af724052f2fa', 'dbc54c994f18d27b', 'a211a0467352e5cc', '60fa52a1cd518a23',
        '20ec56eccc07af91', '49c5881f1b0e4bd1']


def test_trace_is_its_own_op(version):
    # real 3.3.1 / 2.6.2: node TraceGradNode (was SumGradNode / ReshapeGradNode), a second
    # create_graph refused (trace_grad has no grad op), and with axis1 > axis2 2.x takes the axes in
    # ascending order with the same offset (3.x keeps them)
    x = paddle.to_tensor(np.arange(9.0).reshape(3, 3), stop_gradient=False)
    t = paddle.trace(x * x)
    assert t.grad_fn.name() == "TraceGradNode"
    try:
        paddle.grad(t, x, create_graph=True)
        raise AssertionError("no error")
    except RuntimeError as e:
        assert "The Op trace_grad doesn't have any grad" in str(e)
    t.backward()
    assert x.grad.numpy().tolist() == [[0.0, 0.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 16.0]]
    y = paddle.to_tensor(np.ones((2, 3, 4)), stop_gradient=False)
    t2 = paddle.trace(y, offset=-1, axis1=-1, axis2=1)
    t2.sum().backward()
    mask = y.grad.numpy()[0]
    if version == "3":
        assert t2.numpy().tolist() == [3.0, 3.0] and mask[0, 1] == 1 and mask[1, 0] == 0
    else:
        assert t2.numpy().tolist() == [2.0, 2.0] and mask[1, 0] == 1 and mask[0, 1] == 0
