import paddle
for f in [lambda: paddle.logical_and(paddle.to_tensor([1, 0, 2]), paddle.to_tensor([1.0, 1.0, 0.0])),
          lambda: paddle.logical_and(paddle.to_tensor([1, 0, 2]), paddle.to_tensor([1, 1, 0])),
          lambda: paddle.logical_and(paddle.to_tensor([1.5, 0, 2]), paddle.to_tensor([1.0, 1.0, 0.0])),
          lambda: paddle.logical_not(paddle.to_tensor([1.5, 0, 2])),
          lambda: paddle.logical_or(paddle.to_tensor([True, False]), True),
          lambda: paddle.bitwise_and(paddle.to_tensor([5, 3]), paddle.to_tensor([3, 1], dtype='int32')),
          lambda: paddle.to_tensor([True, False]) & paddle.to_tensor([True, True]),
          lambda: paddle.to_tensor([5, 3]) | paddle.to_tensor([2, 4]),
          lambda: ~paddle.to_tensor([5, 3], dtype='uint8'),
          lambda: paddle.isnan(paddle.to_tensor([1.0, float('nan')])),
          lambda: paddle.equal(paddle.to_tensor([1.0, 2.0]), 2.0),
          lambda: paddle.equal(paddle.to_tensor([1, 2]), paddle.to_tensor([1.0, 2.0])),
          lambda: paddle.less_than(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 3], dtype='int32')),
          lambda: paddle.isclose(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, 2.0], dtype='float64')),
          lambda: paddle.equal_all(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 2, 3])),
          lambda: paddle.equal_all(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1, 2])),
          lambda: paddle.allclose(paddle.to_tensor([1.0, float('nan')]), paddle.to_tensor([1.0, float('nan')]), equal_nan=True),
          ]:
    try:
        r = f(); print(r.dtype, r.shape, r.numpy().tolist(), r.stop_gradient)
    except Exception as e:
        print("ERR", type(e).__name__, str(e).split("\n")[0].split(" (at ")[0][:160])
