"""Static graph mode (paddle.enable_static, paddle.static, paddle.jit.save/load).

The scripts in tests/data/paddle_static/ are our own cases; their ``.p3.out`` / ``.p26.out`` files
are what real Paddle 3.3.1 and 2.6.2 printed for them (/opt/oracle/p3, /opt/oracle/p26). Each
script runs under ``gradrepl run --paddle 3`` / ``--paddle 2.6`` in a fresh process (static mode
is process state) and must print the same bytes.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data" / "paddle_static"
CASES = ["values", "run_numbers", "errors", "save_load"]
VERSIONS = {"3": "p3", "2.6": "p26"}


@pytest.mark.parametrize("version", sorted(VERSIONS))
@pytest.mark.parametrize("case", CASES)
def test_script_prints_what_real_paddle_prints(case, version, tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version,
                        str(DATA / f"{case}.py")], capture_output=True, text=True, cwd=tmp_path,
                       env=env, timeout=120)
    want = (DATA / f"{case}.{VERSIONS[version]}.out").read_text()
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == want


@pytest.fixture
def paddle3():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    old = profiles.current().key
    profiles.set_profile("3")
    try:
        yield paddle
    finally:
        paddle.disable_static()
        profiles.set_profile(old)


def test_dynamic_mode_is_untouched_after_disable_static(paddle3):
    from gradrepl.engine import registry

    paddle = paddle3
    ones, rand = paddle.ones, paddle.rand
    assert not registry.apply_hook_active() and paddle.in_dynamic_mode()
    paddle.enable_static()
    assert registry.apply_hook_active() and paddle.ones is not ones
    assert not paddle.base.framework.in_dygraph_mode() and paddle.base.framework.in_pir_mode()
    paddle.disable_static()
    assert not registry.apply_hook_active() and paddle.ones is ones and paddle.rand is rand
    t = paddle.ones([2]) * 3
    assert type(t) is paddle.Tensor and t.numpy().tolist() == [3.0, 3.0]


def test_program_round_trips_through_paddle_save(paddle3, tmp_path):
    paddle = paddle3
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 2], dtype="float32")
        y = paddle.static.nn.fc(x, 3, activation="relu")
    exe = paddle.static.Executor()
    assert exe.run(startup) == []
    feed = {"x": np.array([[1.0, -2.0], [0.5, 4.0]], "float32")}
    want = exe.run(main, feed=feed, fetch_list=[y])[0]
    paddle.save(main, str(tmp_path / "m.pdmodel"))
    back = paddle.load(str(tmp_path / "m.pdmodel"))
    assert type(back) is type(main) and len(back.ops) == len(main.ops)
    fetch = back._values[y._vid]
    assert repr(fetch) == repr(y)
    got = exe.run(back, feed=feed, fetch_list=[fetch])[0]
    assert np.array_equal(got, want) and got.shape == (2, 3)
    with pytest.raises(ValueError, match="not a value of the program"):
        exe.run(back, feed=feed, fetch_list=[y])


def test_clone_and_guard_restore_the_defaults(paddle3):
    paddle = paddle3
    paddle.enable_static()
    before = paddle.static.default_main_program()
    prog = paddle.static.Program()
    with paddle.static.program_guard(prog):
        v = paddle.full([2], 3.0) + 1.0
        assert paddle.static.default_main_program() is prog
    assert paddle.static.default_main_program() is before
    copy = prog.clone(for_test=True)
    assert copy is not prog and len(copy.ops) == len(prog.ops) == 2
    assert paddle.static.Executor().run(copy, fetch_list=[v])[0].tolist() == [4.0, 4.0]


def test_inference_files_of_another_format_are_refused(paddle3, tmp_path):
    paddle = paddle3
    (tmp_path / "m.json").write_bytes(b"{}")
    (tmp_path / "m.pdiparams").write_bytes(b"")
    paddle.enable_static()
    with pytest.raises(Exception, match="not written by gradrepl"):
        paddle.static.load_inference_model(str(tmp_path / "m"), paddle.static.Executor())


def test_open_batch_dims_follow_flatten_into_a_translated_layer(paddle3, tmp_path):
    paddle = paddle3
    from gradrepl.paddle.vision.models import LeNet

    paddle.seed(5)
    net = LeNet()
    spec = [paddle.static.InputSpec([None, 1, 28, 28], "float32")]
    paddle.jit.save(net, str(tmp_path / "lenet"), input_spec=spec)
    assert paddle.in_dynamic_mode()
    loaded = paddle.jit.load(str(tmp_path / "lenet"))
    x = paddle.rand([3, 1, 28, 28])
    assert np.array_equal(loaded(x).numpy(), net(x).numpy())


def test_static_only_apis_refuse_dynamic_mode(paddle3):
    paddle = paddle3
    # the message real Paddle 3.3.1 and 2.6.2 give for paddle.static.data in dynamic mode
    want = ("In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and 'data()' is only "
            "supported in static graph mode. So if you want to use this api, please call "
            "'paddle.enable_static()' before this api to enter static graph mode.")
    with pytest.raises(AssertionError) as err:
        paddle.static.data("x", [None, 2])
    assert str(err.value) == want
    with pytest.raises(AssertionError, match="'fc\\(\\)' is only supported in static graph"):
        paddle.static.nn.fc(paddle.ones([2, 2]), 3)
