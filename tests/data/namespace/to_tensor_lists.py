import paddle, numpy as np
for v in [[np.float64(1.5)], [np.float64(1.5), 2.0], np.float64(1.5), [np.float32(1.5)], [np.int32(3)], [np.int64(3), 1], [[np.float64(1.)]], (np.float64(2.),), [np.float16(1.)], [True, np.bool_(False)], [1, np.float64(2.5)]]:
    t = paddle.to_tensor(v); print(t.dtype, list(t.shape))
for v in [[np.array([1., 2.])], [np.array([1., 2.]), np.array([3., 4.])], [np.array([1., 2.], dtype='float32')], [np.array(1.5)], [np.array([1,2], dtype='int32')], [np.float16(1.), np.float16(2.)], [np.float32(1.), np.float64(2.)], [np.complex128(1j)]]:
    t = paddle.to_tensor(v); print(t.dtype, list(t.shape))
