"""Round six of unseen Paddle lectures (helper P6): what its scripts found.

* ``paddle.amp`` on a CPU (gradrepl/paddle/amp): ``auto_cast``/``amp_guard`` and an enabled
  ``GradScaler`` warn once from Paddle's own files and make no effect, ``decorate`` returns its
  arguments, argument errors with Paddle's messages, Paddle 2.6's disabled scaler without
  settings;
* Paddle 2.x's float16 ``scale`` op (``x * 2``, ``x + 1.0``): a result past 65504 is inf.

Literals were printed by real Paddle 3.3.1 (/work/vpaddle) and 2.6.2 (/work/vpaddle26) in this
session; no real Paddle is imported here.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest


def _run(tmp_path, version, source, name="s.py"):
    path = tmp_path / name
    path.write_text(source)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GRADREPL_CPU_CLASS="amd")
    return subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version,
                           str(path)], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)


def _site(err):
    return [re.sub(r"^/\S*?/site-packages/", "SITE/", line) for line in err.splitlines()]


_AMP = '''\
import paddle
paddle.seed(1)
lin = paddle.nn.Linear(3, 2)
opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters())
x = paddle.ones([2, 3])
scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
scaler2 = paddle.amp.GradScaler()
print(scaler.is_enable(), scaler.state_dict(), paddle.amp.is_float16_supported())
for level in ['O1', 'O2']:
    with paddle.amp.auto_cast(level=level):
        loss = lin(x).mean()
    s = scaler.scale(loss)
    print(level, s is loss, s.dtype)
    s.backward()
    scaler.step(opt)
    scaler.update()
    opt.clear_grad()
print(lin.weight.numpy())
m, o = paddle.amp.decorate(models=lin, optimizers=opt, level='O2')
print(m is lin, o is opt, m.weight.dtype)
with paddle.amp.auto_cast(enable=False):
    pass
for bad in [dict(level='O3'), dict(dtype='float32')]:
    try:
        with paddle.amp.auto_cast(**bad):
            pass
    except ValueError as e:
        print('ValueError', e)
try:
    paddle.amp.decorate(lin, level='O0')
except ValueError as e:
    print('ValueError', e)
'''
# printed by real Paddle 3.3.1 and 2.6.2 alike: two plain SGD steps (the scaler does nothing)
_AMP_OUT = """\
False {} False
O1 True paddle.float32
O2 True paddle.float32
[[-1.5562803   0.08041739]
 [-0.11427772 -1.4942133 ]
 [-0.74618495  0.5179362 ]]
True True paddle.float32
ValueError level should be O0, OD, O1 or O2.
ValueError If enable amp, dtype should be 'float16' or 'bfloat16'.
ValueError level should be O1 or O2, O1 represent AMP train mode, O2 represent Pure fp16 train mode.
"""
_AMP_ERR = {
    "3": ("amp/grad_scaler.py:133", "amp/auto_cast.py:599"),
    "2.6": ("amp/grad_scaler.py:112", "amp/auto_cast.py:359"),
}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_amp_on_cpu_warns_once_and_trains_in_float32(tmp_path, version):
    r = _run(tmp_path, version, _AMP)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == _AMP_OUT
    scaler_at, guard_at = _AMP_ERR[version]
    assert _site(r.stderr) == [
        f"SITE/paddle/{scaler_at}: UserWarning: AmpScaler can only be enabled on CUDAPlace, "
        "XPUPlace and CustomPlace, current place is Place(cpu), so it makes no effect.",
        "  warnings.warn(",
        f"SITE/paddle/{guard_at}: UserWarning: amp_guard can only be enabled on CUDAPlace, "
        "XPUPlace, and CustomPlace, current place is Place(cpu), so it makes no effect.",
        "  warnings.warn("]


def test_amp_sgd_steps_match_numpy(profile):
    """The weights printed above are two SGD steps of mean(x @ W + b) (independent numpy)."""
    import gradrepl.paddle as paddle

    paddle.seed(1)
    lin = paddle.nn.Linear(3, 2)
    w = lin.weight.numpy().astype(np.float64)
    for _ in range(2):
        w = w - 0.5 * np.full((3, 2), 2 / 4)   # d mean / dW over a [2, 2] output of ones @ W
    np.testing.assert_allclose(w, [[-1.5562803, 0.08041739], [-0.11427772, -1.4942133],
                                   [-0.74618495, 0.5179362]], rtol=1e-6)


def test_disabled_scaler_settings_per_version(profile):
    import gradrepl.paddle as paddle

    s = paddle.amp.GradScaler(enable=False)
    assert not s.is_enable() and s.state_dict() == {}
    if profile == "3":
        assert s.get_init_loss_scaling() == 1.0 and s.is_use_dynamic_loss_scaling() is False
    else:   # real 2.6.2: "'GradScaler' object has no attribute '_init_loss_scaling'"
        with pytest.raises(AttributeError, match="no attribute '_init_loss_scaling'"):
            s.get_init_loss_scaling()
    assert paddle.amp.decorate(s) is s   # O1: whatever it is given


@pytest.mark.parametrize("version, want", [
    # real 2.6.2: Eigen's half converts toward zero and a magnitude past 65504 is inf
    ("2.6", "[    inf -65472.  60000.] [    inf -65472.  60000.] [ 65504. -65504.  60000.] "
            "[-inf  inf -inf] [ 2.  5. inf  0. inf]"),
    # real 3.3.1: to nearest (65505 -> 65504, 65520 -> inf)
    ("3", "[ 6.55e+04 -6.55e+04  6.00e+04] [       inf -6.547e+04  6.003e+04] "
          "[ 6.55e+04 -6.55e+04  6.00e+04] [-inf  inf -inf] [ 2.  5. inf  0. inf]"),
])
def test_float16_scale_overflow(tmp_path, version, want):
    src = ("import paddle\n"
           "h = paddle.to_tensor([65504., -65504., 60000.], 'float16')\n"
           "g = paddle.to_tensor([1.0, 2.5, 65504.0, 1e-8, 40000.], dtype='float16')\n"
           "print((h + 1.0).numpy(), (h + 16.).numpy(), (h * 1.0001).numpy(), "
           "(h * -1.5).numpy(), (g * 2).numpy())\n")
    r = _run(tmp_path, version, src)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == want + "\n"
