# Static-mode Values as Paddle prints them (3.x: pir.Value, 2.x: Variable). Our own cases.
import paddle

paddle.enable_static()
print(paddle.in_dynamic_mode())
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
    shown = [
        x,
        paddle.static.data(name="flag", shape=[], dtype="bool"),
        paddle.static.data(name="h", shape=[2, -1], dtype="float16"),
        paddle.static.data(name="ids", shape=[5], dtype="int64"),
        paddle.static.data(name="img", shape=[8, 6]),
        paddle.static.nn.fc(x, 4),
        paddle.create_parameter(shape=[3, 2], dtype="float32"),
        paddle.create_parameter(shape=[2], dtype="float32", is_bias=True),
        paddle.rand([2, 2]),
        paddle.full([2, 3], 1.5),
        paddle.ones([4], dtype="int32"),
        paddle.zeros([2, 1], dtype="float64"),
        x * 3.0,
        x + x,
        paddle.matmul(x, paddle.ones([3, 5])),
        paddle.nn.functional.relu(x),
        paddle.exp(x),
        paddle.cast(x, "float64"),
        paddle.transpose(x, [1, 0]),
        paddle.reshape(x, [-1]),
        paddle.static.setitem(paddle.ones([2, 3]), 0, 7.0),
    ]
    for v in shown:
        print(v)
    print(x.shape, shown[5].shape, shown[1].shape, x.dtype, shown[3].dtype)
    print(x.name, shown[6].name, shown[7].name, x.stop_gradient, shown[5].stop_gradient)
    print(shown[6].persistable, x.persistable)
    print(type(x), type(main))
paddle.disable_static()
print(paddle.in_dynamic_mode())
