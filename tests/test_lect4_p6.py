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


_JIT = '''\
import paddle
from paddle.static import InputSpec

class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static(input_spec=[InputSpec(shape=[None, 3], dtype='float32')])
    def forward(self, x):
        return self.fc(x)

paddle.seed(0)
net = Net()
x = paddle.ones([2, 3])
print(net(x).numpy())
paddle.jit.save(net, 'net/infer')
m = paddle.jit.load('net/infer')
y = m(x)
print(y.stop_gradient, y.numpy())

@paddle.jit.to_static
def sign_shift(x):
    if paddle.mean(x) > 0:
        return x + 1
    return x - 1

print(sign_shift(paddle.to_tensor([1.0, 2.0])).numpy(), sign_shift(paddle.to_tensor([-3.0])).numpy())
print(type(sign_shift).__name__, type(net.forward).__name__)
mlp = paddle.jit.to_static(paddle.nn.Sequential(paddle.nn.Linear(3, 1)))
print(type(mlp).__name__, type(mlp.forward).__name__, mlp(x).shape)
paddle.jit.save(mlp, 'mlp/infer', input_spec=[InputSpec([None, 3], 'float32', 'x')])
'''
# real 3.3.1 printed this; 2.6.2 the same but "True" (its loaded model's results stop gradient)
# and "[2, 1]" for the shape
_JIT_OUT = """\
[[-0.22951925 -1.0986397 ]
 [-0.22951925 -1.0986397 ]]
{} [[-0.22951925 -1.0986397 ]
 [-0.22951925 -1.0986397 ]]
[2. 3.] [-4.]
SymbolicStaticFunction SymbolicStaticFunction
Sequential SymbolicStaticFunction {}
"""
_SPEC_IGNORED = ["UserWarning: full_graph=False don't support input_spec arguments. It will not "
                 "produce any effect.",
                 "You can set full_graph=True, then you can assign input spec.", "",
                 "  warnings.warn("]
_NO_EXISTS = ("UserWarning: The tensor `x` does not exists. Please make sure the name of "
              "InputSpec or example Tensor in input_spec is the same as the name of InputSpec in "
              "`to_static` decorated on the Layer.forward method.")
_PIR_PASS = "\x1b[1m\x1b[35m--- Running PIR pass [inplace_pass]\x1b[0m"
# their stderr, glog stamps and the site-packages folder masked: the SOT warning at decoration,
# the loaded model's first run, the graph break of ``if paddle.mean(x) > 0`` (2.6.2: once more
# for the second input shape), the named InputSpec of a traced Layer
_JIT_ERR = {
    "3": (["SITE/paddle/jit/dy2static/program_translator.py:755: " + _SPEC_IGNORED[0]]
          + _SPEC_IGNORED[1:]
          + ["I pir_interpreter.cc:1606] New Executor is Running ...",
             "I pir_interpreter.cc:1630] pir interpreter is running by multi-thread mode ...",
             "W eager_utils.cc:3584] Paddle static graph(PIR) not support input out tensor for "
             "now!!!!!",
             "SITE/paddle/jit/api.py:554: " + _NO_EXISTS,
             "  warnings.warn(name_no_exists_error % spec.name)"]),
    "2.6": (["SITE/paddle/jit/dy2static/program_translator.py:712: " + _SPEC_IGNORED[0]]
            + _SPEC_IGNORED[1:]
            + ["I program_interpreter.cc:212] New Executor is Running.",
               "W tensor.cc:399] The `is_initialized` method is deprecated since version 2.3, and "
               "will be removed in version 2.4! Please use `initialized` method instead.",
               _PIR_PASS, "I pass.cc:38] --- detected [0] subgraphs!",
               "I pir_interpreter.cc:1281] New Executor is Running ...",
               "I pir_interpreter.cc:1308] pir interpreter is running by multi-thread mode ...",
               _PIR_PASS, "I pass.cc:38] --- detected [0] subgraphs!",
               "SITE/paddle/jit/api.py:608: " + _NO_EXISTS,
               "  warnings.warn(name_no_exists_error % spec.name)"]),
}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_to_static_training_save_load_and_graph_breaks(tmp_path, version):
    r = _run(tmp_path, version, _JIT)
    assert r.returncode == 0, r.stderr[-2000:]
    v3 = version == "3"
    assert r.stdout == _JIT_OUT.format("False" if v3 else "True",
                                       "paddle.Size([2, 1])" if v3 else "[2, 1]")
    err = [re.sub(r"^([IWEF])\d{4} [\d:.]+ +\d+ ", r"\1 ", line) for line in _site(r.stderr)]
    assert err == _JIT_ERR[version]


def test_to_static_forward_values_match_numpy(profile):
    """The decorated forward runs eagerly: its output is x @ W + b (independent numpy)."""
    import gradrepl.paddle as paddle

    lin = paddle.nn.Linear(3, 2)
    f = paddle.jit.to_static(lin)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = x.astype(np.float64) @ lin.weight.numpy() + lin.bias.numpy()
    np.testing.assert_allclose(f(paddle.to_tensor(x)).numpy(), want, rtol=1e-6)
    assert type(f.forward).__name__ == "SymbolicStaticFunction" and f._jit_traced
