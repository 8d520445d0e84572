"""Issue 28 item 3: Paddle's rules, each checked against what real Paddle 3.3.1 and 2.6.2 did
(values and messages recorded from the real Paddle oracles in this session, as the comments say).
"""
import pytest

import gradrepl.paddle as paddle

F = paddle.nn.functional

# recorded from real Paddle 3.3.1 (tensor_wrapper.h:268) and 2.6.2 (tensor_wrapper.h:265)
INPLACE_TEXT = (
    "(PermissionDenied) Tensor '' used in gradient computation has been modified by an inplace "
    "operation. Its version is {v} but the expected version is {s}. Please fix your code to void "
    "calling an inplace operator after using the Tensor which will used in gradient computation."
    "\n  [Hint: Expected tensor_version == wrapper_version_snapshot, but received tensor_version:"
    "{v} != wrapper_version_snapshot:{s}.] (at /paddle/paddle/fluid/eager/tensor_wrapper.h:{line})"
    "\n")
LINE = {"3": 268, "2.6": 265}


def _setitem(h):
    h[0] = 0


MODIFY = {"scale_": lambda h: h.scale_(2.0), "exp_": lambda h: h.exp_(), "setitem": _setitem}
# ops whose grad node keeps its OUTPUT: writing to it in place fails the backward (real 3.3.1
# and 2.6.2 both raise for each of these with each of the three writes)
SAVES_OUT = {"relu": F.relu, "tanh": paddle.tanh, "sigmoid": F.sigmoid, "exp": paddle.exp,
             "sqrt": paddle.sqrt, "softmax": F.softmax}
# ... and ops that do not: the backward runs (values recorded from real 3.3.1 and 2.6.2)
KEEPS_INPUT = {
    "mul2": (lambda x: x * 2, {"scale_": [8.0, 8.0], "exp_": [218.39259338378906, 11923.83203125],
                               "setitem": [0.0, 4.0]}),
    "sin": (paddle.sin, {"scale_": [-1.664587378501892, -2.614574432373047],
                         "exp_": [-2.0662336349487305, -0.6133323311805725],
                         "setitem": [0.0, -1.3072872161865234]}),
    "log": (paddle.log, {"scale_": [2.0, 1.0], "exp_": [2.0, 2.0], "setitem": [0.0, 0.5]}),
    "square": (paddle.square, {"scale_": [16.0, 32.0], "exp_": [436.7851867675781, 142177776.0],
                               "setitem": [0.0, 16.0]}),
}


def _run(fn, mod):
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    h = fn(a * 2)
    mod(h)
    h.sum().backward()
    return a.grad.numpy().tolist()


@pytest.mark.parametrize("op", sorted(SAVES_OUT))
@pytest.mark.parametrize("write", sorted(MODIFY))
def test_writing_a_saved_output_fails_backward(profile, op, write):
    with pytest.raises(RuntimeError) as info:
        _run(SAVES_OUT[op], MODIFY[write])
    assert str(info.value) == INPLACE_TEXT.format(v=1, s=0, line=LINE[profile])


@pytest.mark.parametrize("op", sorted(KEEPS_INPUT))
@pytest.mark.parametrize("write", sorted(MODIFY))
def test_writing_an_output_nobody_saved_is_fine(profile, op, write):
    fn, want = KEEPS_INPUT[op]
    assert _run(fn, MODIFY[write]) == pytest.approx(want[write], rel=1e-6)


def test_writing_a_saved_input_fails_but_not_an_input_only_the_output_stands_for(profile):
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    b = a * 2
    c = b * b  # multiply keeps b
    b.scale_(2.0)
    with pytest.raises(RuntimeError, match="Its version is 1 but the expected version is 0"):
        c.sum().backward()
    # tanh and relu keep their output, not their input: real Paddle runs these
    for fn, want in ((paddle.tanh, [0.14130163192749023, 0.002682209014892578]),
                     (F.relu, [2.0, 2.0])):
        a = paddle.to_tensor([1., 2.], stop_gradient=False)
        b = a * 2
        c = fn(b)
        b.scale_(2.0)
        c.sum().backward()
        assert a.grad.numpy().tolist() == pytest.approx(want, rel=1e-6)


def test_versions_count_every_write_and_an_inplace_op_saves_after_its_own(profile):
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    h = paddle.exp(a * 2)
    h.scale_(2.0)
    h.scale_(2.0)
    with pytest.raises(RuntimeError) as info:
        h.sum().backward()
    assert str(info.value) == INPLACE_TEXT.format(v=2, s=0, line=LINE[profile])
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    h = a * 2
    h.exp_()  # exp_'s node keeps h at version 1
    h.exp_()
    with pytest.raises(RuntimeError) as info:
        h.sum().backward()
    assert str(info.value) == INPLACE_TEXT.format(v=2, s=1, line=LINE[profile])


def test_writes_under_no_grad_through_views_and_relu_(profile):
    def fails(write):
        a = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False)
        h = paddle.exp(a * 2)
        write(h)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            h.sum().backward()

    def no_grad_scale(h):
        with paddle.no_grad():
            h.scale_(2.0)

    fails(no_grad_scale)  # real Paddle: the version moves under no_grad too
    fails(lambda h: h.reshape([2, 2]).scale_(2.0))  # a view shares the version counter
    fails(lambda h: h[1:3].scale_(2.0))
    fails(lambda h: h.detach().scale_(2.0))
    a = paddle.to_tensor([1., -2.], stop_gradient=False)
    h = F.relu(a * 2)
    F.relu_(h)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()
    # paddle.grad checks too
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    h = paddle.tanh(a * 2)
    h.scale_(3.0)
    with pytest.raises(RuntimeError, match="Its version is 1 but the expected version is 0"):
        paddle.grad(h.sum(), a)


def test_view_versions_follow_the_base(profile):
    # real 3.3.1 / 2.6.2: views (reshape, slices, detach, transpose, unsqueeze ...) share the
    # counter; split, clone, assign and advanced indexing make new tensors
    for make, shared in ((lambda x: x.reshape([2, 2]), True), (lambda x: x[1:3], True),
                         (lambda x: x[1], True), (lambda x: x.detach(), True),
                         (lambda x: x.unsqueeze(0), True), (lambda x: x.flatten(), True),
                         (lambda x: paddle.split(x, 2)[0], False), (lambda x: x.clone(), False),
                         (lambda x: x[[0, 2]], False), (lambda x: paddle.unstack(x)[0], False)):
        x = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False) * 1.0
        y = make(x)
        x.scale_(2.0)
        assert y.inplace_version == (1 if shared else 0)
        y.scale_(2.0)
        assert x.inplace_version == (2 if shared else 1)


def test_set_value_does_not_bump_and_the_backward_reads_the_new_values(profile):
    # real 3.3.1 / 2.6.2: [5, 6] (multiply reads w's new values) and [0.75, 0.75] (tanh's
    # backward reads the output's new values: 1 - 0.5**2)
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    w = paddle.to_tensor([3., 4.])
    c = a * w
    w.set_value(paddle.to_tensor([5., 6.]))
    c.sum().backward()
    assert a.grad.numpy().tolist() == [5.0, 6.0] and w.inplace_version == 0
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    h = paddle.tanh(a * 1.0)
    h.set_value(paddle.to_tensor([0.5, 0.5]))
    h.sum().backward()
    assert a.grad.numpy().tolist() == [0.75, 0.75]


@pytest.mark.parametrize("fn,saved", [
    # (function, (output saved, input saved)) as real 3.3.1 and 2.6.2 behave
    (paddle.reciprocal, (True, False)), (paddle.erfinv, (True, False)),
    (F.selu, (True, False)), (F.hardsigmoid, (True, False)), (F.log_softmax, (True, False)),
    (F.silu, (True, True)), (F.swish, (False, True)), (paddle.logsumexp, (True, True)),
    (paddle.max, (True, True)), (paddle.cumprod, (True, True)), (paddle.abs, (False, True)),
    (F.hardswish, (False, True)), (paddle.sort, (False, False)),
    (lambda x: x / 2.0, (False, False)), (lambda x: 2.0 / x, (True, True)),
    (lambda x: paddle.where(x > 0.4, x, x * 3), (False, False)),  # (x * 3: a scale op)
])
def test_which_tensors_each_op_keeps(profile, fn, saved):
    got = []
    for which in ("out", "in"):
        a = paddle.to_tensor([0.3, 0.6, 0.2, 0.5], stop_gradient=False)
        x = a * 1.0
        kw = {"dim": 0} if fn is paddle.cumprod else {}
        h = fn(x, **kw)
        if isinstance(h, tuple):
            h = h[0]
        (h if which == "out" else x).scale_(2.0)
        try:
            h.sum().backward()
            got.append(False)
        except RuntimeError as exc:
            assert "inplace operation" in str(exc)
            got.append(True)
    assert tuple(got) == saved


# ------------------------------------------------------------------ float16 with python scalars
def _f16_bits(t):
    import numpy as np

    return t.numpy().view(np.uint16).tolist()


def test_float16_plus_a_python_scalar_rounds_as_each_version():
    # real 3.3.1: 1.1220703125 (to nearest); real 2.6.2: 1.12109375 (toward zero)
    for key, want in (("3", 1.1220703125), ("2.6", 1.12109375)):
        paddle.profiles.set_profile(key)
        try:
            x = paddle.to_tensor([0.12164306640625], dtype="float16")
            assert float((x + 1.0).numpy()[0]) == want
            assert float((1.0 + x).numpy()[0]) == want
        finally:
            paddle.profiles.set_profile("2.2")


def test_float16_scale_ops_in_3_round_each_step_to_nearest():
    import numpy as np

    rng = np.random.default_rng(5)
    v = (rng.random(400) * 4 - 2).astype(np.float16)
    f32 = v.astype(np.float32)

    def near(a):
        return np.asarray(a, np.float32).astype(np.float16).view(np.uint16).tolist()

    h = np.float16
    cases = {  # 3.3.1's rule (matched real 3.3.1 on 2,000 values per op): the scalar becomes
        # float16, each operation rounds to nearest
        "add": (lambda x: x + 1.0, near(f32 + 1)),
        "sub": (lambda x: x - 0.3, near(f32 - np.float32(h(0.3)))),
        "rsub": (lambda x: 0.3 - x, near(np.float32(h(0.3)) - f32)),
        "mul": (lambda x: x * 0.3, near(f32 * np.float32(h(0.3)))),
        "scale": (lambda x: paddle.scale(x, 0.3, 0.7),
                  near((f32 * np.float32(h(0.3))).astype(np.float16).astype(np.float32)
                       + np.float32(h(0.7)))),
    }
    paddle.profiles.set_profile("3")
    try:
        x = paddle.to_tensor(v, dtype="float16")
        for name, (fn, want) in cases.items():
            assert _f16_bits(fn(x)) == want, name
    finally:
        paddle.profiles.set_profile("2.2")


# ------------------------------------------------------------------ second-order zeros
def _second(f):
    x = paddle.to_tensor([1., 2.], stop_gradient=False)
    w = paddle.to_tensor([3., 4.])
    (g,) = paddle.grad([f(x, w)], [x], create_graph=True)
    (g * g).sum().backward()
    return g, (None if x.grad is None else x.grad.numpy().tolist())


def test_a_constant_first_gradient_still_links_the_saved_inputs(profile):
    # real 3.3.1 and 2.6.2: zeros for x0 and x1 (multiply's double-grad node takes t = x0 + x1)
    x0 = paddle.to_tensor([1., 2.], stop_gradient=False)
    x1 = paddle.to_tensor([2., 1.], stop_gradient=False)
    w = paddle.to_tensor([3., 4.])
    t = x0 + x1
    loss = (t * w).sum()
    (g,) = paddle.grad([loss], [x0], create_graph=True)
    assert g.numpy().tolist() == [3.0, 4.0] and not g.stop_gradient
    (g * g).sum().backward()
    assert x0.grad.numpy().tolist() == [0.0, 0.0]
    assert x1.grad.numpy().tolist() == [0.0, 0.0]
    # recorded from real 3.3.1 / 2.6.2: (first gradient, x.grad after the second backward)
    for f, want_g, want in (
            (lambda x, w: (x * w).sum(), [3.0, 4.0], [0.0, 0.0]),
            (lambda x, w: ((x + w) * w).sum(), [3.0, 4.0], [0.0, 0.0]),
            (lambda x, w: (x * w).mean(), [1.5, 2.0], [0.0, 0.0]),
            (lambda x, w: (x + x * w).sum(), [4.0, 5.0], [0.0, 0.0]),
            (lambda x, w: x.sum(), [1.0, 1.0], None),  # sum and scale keep no input
            (lambda x, w: (x * 3.0).sum(), [3.0, 3.0], None),
            (lambda x, w: paddle.matmul(x, w), [3.0, 4.0], None)):  # matmul's links nothing
        g, got = _second(f)
        assert g.numpy().tolist() == want_g and got == want
        assert not g.is_leaf  # (real: every create_graph gradient comes out of a grad node)


# ------------------------------------------------------------------ DataLoader workers' seeds
class _RandDataset(paddle.io.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        import random

        import numpy as np

        info = paddle.io.get_worker_info()
        return np.array([np.random.rand(), random.random(), float(paddle.rand([1]).item()), i,
                         -1 if info is None else info.id], dtype="float64")


def test_dataloader_workers_draw_as_paddles_workers():
    import random

    import numpy as np

    np.random.seed(0)
    random.seed(0)
    paddle.seed(0)
    got = []
    for _epoch in range(2):
        for b in paddle.io.DataLoader(_RandDataset(), batch_size=2, num_workers=2, shuffle=True):
            got.append(np.round(b.numpy(), 4).tolist())
    # recorded from real Paddle 3.3.1 (2.6.2 prints the same): per sample (numpy, python random,
    # paddle.rand, index, worker id)
    assert got[:2] == [[[0.8372, 0.2132, 0.9248, 6.0, 0.0], [0.3876, 0.2764, 0.9709, 2.0, 0.0]],
                       [[0.6703, 0.7734, 0.4152, 1.0, 1.0], [0.0759, 0.1634, 0.045, 4.0, 1.0]]]
    assert got[4] == [[0.049, 0.5272, 0.6037, 3.0, 0.0], [0.2397, 0.5437, 0.2368, 1.0, 0.0]]
    assert got[7] == [[0.9273, 0.6651, 0.4711, 6.0, 1.0], [0.6056, 0.576, 0.7672, 4.0, 1.0]]
    # the main process's generators moved only by the base seed's draw (and the shuffle)
    assert np.random.rand() == 0.7917250380826646 and random.random() == 0.8444218515250481
    assert paddle.io.get_worker_info() is None


def test_worker_seed_words_are_numpys_seed_sequence_mix():
    import numpy as np

    from gradrepl.paddle.io.dataloader.worker import worker_states

    base = 900450186894289455  # np.random.seed(0); np.random.randint(0, sys.maxsize)
    for wid in range(3):
        np.random.seed(worker_states(base, wid))
        first = np.random.rand()
        assert 0.0 <= first < 1.0
    np.random.seed(worker_states(base, 0))
    assert round(np.random.rand(), 4) == 0.8372  # real worker 0's first draw above


def test_worker_init_fn_and_iterable_datasets_split_by_worker():
    import math

    import numpy as np

    seen = []

    def init(wid):
        info = paddle.io.get_worker_info()
        seen.append((wid, info.id, info.num_workers))

    class Range(paddle.io.IterableDataset):
        def __iter__(self):
            info = paddle.io.get_worker_info()
            per = int(math.ceil(7 / float(info.num_workers)))
            lo = info.id * per
            for i in range(lo, min(lo + per, 7)):
                yield np.array([i], dtype="float64")

    got = [b.numpy().ravel().tolist()
           for b in paddle.io.DataLoader(Range(), batch_size=2, num_workers=2,
                                         worker_init_fn=init)]
    assert seen == [(0, 0, 2), (1, 1, 2)]
    # real 3.3.1 / 2.6.2: batches from the workers in turn, each worker's own range
    assert got == [[0.0, 1.0], [4.0, 5.0], [2.0, 3.0], [6.0]]
    info = paddle.io.dataloader.worker.WorkerInfo(id=0, num_workers=1, dataset=None, seed=1) \
        if hasattr(paddle.io, "dataloader") else None
    if info is not None:
        with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo"):
            info.id = 2


# ------------------------------------------------------------------ places and shapes
def test_device_places_are_refused_as_a_cpu_only_paddle_does(profile):
    if profile == "3":
        # real 3.3.1, exact text
        with pytest.raises(ValueError) as info:
            paddle.CUDAPlace(0)
        assert str(info.value) == ("(InvalidArgument) use wrong place, Please check. (at "
                                   "/paddle/paddle/fluid/pybind/place.cc:451)\n")
        with pytest.raises(ValueError, match="place.cc:540"):
            paddle.XPUPlace(0)
    else:
        # real 2.6.2 logs this and aborts the process (exit status 255): here a RuntimeError
        with pytest.raises(RuntimeError, match=r"(?s)Cannot use GPU because you have installed "
                           r"CPU version PaddlePaddle\..*change CUDAPlace\(0\) to be CPUPlace"):
            paddle.CUDAPlace(0)
    line = {"3": 650, "2.6": 552}[profile]
    with pytest.raises(RuntimeError) as info:
        paddle.CUDAPinnedPlace()
    assert str(info.value) == (
        "(PermissionDenied) Cannot use CUDAPinnedPlace in CPU only version, Please recompile or "
        f"reinstall Paddle with CUDA support. (at /paddle/paddle/fluid/pybind/place.cc:{line})\n")
    with pytest.raises(TypeError, match="incompatible constructor arguments"):
        paddle.CUDAPlace("a")
    assert repr(paddle.CPUPlace()) == "Place(cpu)"


def test_a_parameter_or_a_float_tensor_is_no_shape(profile):
    lin = paddle.nn.Linear(2, 3)
    # real 3.3.1 / 2.6.2, exact texts
    want = {"3": (TypeError, "(InvalidType) full(): argument (position 1) must be list, tuple, "
                  "int, or Tensor, but got EagerParamBase (at /paddle/paddle/fluid/pybind/"
                  "eager_utils.cc:2669)\n"),
            "2.6": (ValueError, "(InvalidArgument) full(): argument (position 1) must be list "
                    "or int, but got EagerParamBase (at /paddle/paddle/fluid/pybind/"
                    "eager_utils.cc:2325)\n")}[profile]
    for fn in (paddle.zeros, paddle.ones, lambda s: paddle.full(s, 1.0)):
        with pytest.raises(want[0]) as info:
            fn(lin.weight)
        assert str(info.value) == want[1]
    with pytest.raises(OSError) as info:
        paddle.zeros(paddle.to_tensor([2.7, 3.2]))
    line = {"3": 105, "2.6": 108}[profile]
    assert str(info.value) == (
        "Data type error. Currently, The data type of IntArrayBase only supports Tensor with "
        f"int32 and int64, but now received `float32`.\n  [/paddle/paddle/phi/common/"
        f"int_array.h:{line}]")
    assert paddle.zeros(paddle.to_tensor([2, 3])).shape == [2, 3]
    assert paddle.zeros_like(lin.weight).shape == [2, 3]


# ------------------------------------------------------------------ paddle.utils
def test_paddle_utils(profile, capsys):
    import warnings

    U = paddle.utils
    # real 3.3.1 / 2.6.2
    key = "fc28v" + profile.replace(".", "")
    assert U.unique_name.generate(key) == key + "_0" and U.unique_name.generate(key) == key + "_1"
    with U.unique_name.guard():
        assert U.unique_name.generate(key) == key + "_0"
    with U.unique_name.guard("A_"):
        assert U.unique_name.generate(key) == "A_" + key + "_0"
    with pytest.raises(ImportError) as info:
        U.try_import("not_a_module_xyz")
    assert str(info.value) == (
        "Failed importing not_a_module_xyz. This likely means that some paddle modules require "
        "additional dependencies that have to be manually installed (usually with `pip install "
        "not_a_module_xyz`). ")
    assert U.try_import("math").sqrt(4) == 2.0

    @U.deprecated(since="2.0.0", update_to="paddle.foo", reason="bar", level=1)
    def f(x):
        """Adds one."""
        return x + 1

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert f(1) == 2
    assert len(w) == 1 and "is deprecated since 2.0.0" in str(w[0].message)
    assert f.__doc__.startswith("\n\nWarning:\n    API ")
    U.run_check()
    assert capsys.readouterr().out == (
        "Running verify PaddlePaddle program ... \nPaddlePaddle works well on 1 CPU.\n"
        "PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle "
        "now.\n")
    assert U.flatten([1, [2, (3, {"a": 4})]]) == [1, 2, 3, 4]
    assert U.map_structure(lambda x: x * 2, [1, (2, 3)]) == [2, (4, 6)]
    assert U.pack_sequence_as([0, (0, 0)], [5, 6, 7]) == [5, (6, 7)]
    version = {"3": "3.3.1", "2.6": "2.6.2"}[profile]
    with pytest.raises(Exception) as info:
        U.require_version("1.0.0", "2.0.0")
    assert str(info.value) == (f"VersionError: PaddlePaddle version in [1.0.0, 2.0.0] "
                               f"required, but {version} installed.")
    assert U.require_version("0.0.0") is None
    with pytest.raises(RuntimeError, match="Retry limit reached"):
        U.download.get_weights_path_from_url("https://example.invalid/none28.pdparams")
