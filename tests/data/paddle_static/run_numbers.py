# Executor runs: seeded random ops, startup initialisers, feeds and fetches. Our own cases.
import numpy as np
import paddle

np.set_printoptions(precision=6)
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    paddle.seed(7)
    x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
    w = paddle.create_parameter(shape=[3, 2], dtype="float32")
    b = paddle.create_parameter(shape=[2], dtype="float32", is_bias=True)
    y = paddle.add(paddle.matmul(x, w), b)
    z = paddle.nn.functional.relu(y) * 2.0 + 1.0
    r = paddle.rand([2, 3])
    n = paddle.randn([4])
    o = paddle.ones([2, 3], dtype="int32")
    s = paddle.static.setitem(o, 1, 9)
exe = paddle.static.Executor(paddle.CPUPlace())
print(exe.run(startup))
feed = {"x": np.arange(6, dtype="float32").reshape(2, 3) / 4}
res = exe.run(main, feed=feed, fetch_list=[y, z, r, n, s, w])
for a in res:
    print(a.dtype, a.shape)
    print(a)
print(sorted(main.state_dict()))
again = exe.run(main, feed=feed, fetch_list=[x, y])
print(again[0].tolist(), np.array_equal(again[1], res[0]))
print(exe.run(main, feed={"x": [[1.0, 2.0, 3.0]]}, fetch_list=[y])[0])
paddle.disable_static()
paddle.seed(7)
print(paddle.rand([2, 3]).numpy())
print(paddle.randn([4]).numpy())
