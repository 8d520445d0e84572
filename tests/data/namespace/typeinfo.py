import paddle
for d in [paddle.float16, paddle.float32, paddle.float64]:
    f = paddle.finfo(d); print(repr(f)); print(f.min, f.max, f.eps, f.resolution, f.smallest_normal, f.tiny, f.bits, f.dtype, type(f.dtype))
for d in [paddle.uint8, paddle.int8, paddle.int16, paddle.int32, paddle.int64]:
    f = paddle.iinfo(d); print(f); print(f.min, f.max, f.bits, f.dtype)
print(paddle.finfo(paddle.float32) == paddle.finfo(paddle.float32))
try: paddle.finfo(paddle.int32)
except Exception as e: print(type(e).__name__, e)
try: paddle.iinfo(paddle.float32)
except Exception as e: print(type(e).__name__, e)
print(paddle.get_flags('FLAGS_check_nan_inf'))
try: print(paddle.get_flags('FLAGS_nope'))
except Exception as e: print(type(e).__name__, e)
paddle.set_flags({'FLAGS_check_nan_inf': True}); print(paddle.get_flags(['FLAGS_check_nan_inf']))
print(paddle.is_compiled_with_rocm(), paddle.is_compiled_with_cinn(), paddle.is_compiled_with_ipu(), paddle.is_compiled_with_distribute(), paddle.is_compiled_with_custom_device('npu'))
