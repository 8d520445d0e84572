# Inference models, programs and jit-saved layers written and read back. Our own cases.
import os
import tempfile

import numpy as np
import paddle

os.chdir(tempfile.mkdtemp())
paddle.seed(3)
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    img = paddle.static.data(name="img", shape=[None, 6])
    w = paddle.create_parameter(shape=[6, 3], dtype="float32")
    out = paddle.nn.functional.sigmoid(paddle.matmul(img, w))
exe = paddle.static.Executor(paddle.CPUPlace())
print(exe.run(startup))
batch = np.linspace(-1, 1, 12, dtype="float32").reshape(2, 6)
first = exe.run(main, feed={"img": batch}, fetch_list=[out])[0]
print(first)
print(paddle.static.save_inference_model("saved/infer", [img], [out], exe, program=main))
print(len(os.listdir("saved")), sorted(os.listdir("saved"))[-1])
prog, feed_names, fetch_targets = paddle.static.load_inference_model("saved/infer", exe)
print(feed_names, len(fetch_targets), type(prog))
again = exe.run(prog, feed={feed_names[0]: batch}, fetch_list=fetch_targets)
print(np.array_equal(again[0], first), again[0].shape)
paddle.save(main.state_dict(), "saved/main.pdparams")
print(sorted(paddle.load("saved/main.pdparams")))
paddle.disable_static()


class Tiny(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x):
        return paddle.tanh(self.fc(x)).flatten()


net = Tiny()
paddle.jit.save(net, "jit/tiny", input_spec=[paddle.static.InputSpec([None, 4], "float32")])
print(len(os.listdir("jit")))
loaded = paddle.jit.load("jit/tiny")
x = paddle.rand([3, 4])
print(type(loaded), loaded)
print(np.allclose(loaded(x).numpy(), net(x).numpy()), loaded(x).shape)
model = paddle.Model(Tiny(), inputs=[paddle.static.InputSpec([None, 4], "float32", "x")])
print(model.save("hapi/tiny", training=False), len(os.listdir("hapi")))
print(paddle.in_dynamic_mode())
