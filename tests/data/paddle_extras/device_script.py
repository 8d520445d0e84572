"""paddle.device.cuda and friends for tests/test_paddle_extras.py."""
import warnings
warnings.simplefilter("ignore")
import paddle
c = paddle.device.cuda
print(c.device_count())
for f in ['empty_cache', 'synchronize', 'max_memory_allocated', 'memory_allocated', 'max_memory_reserved', 'memory_reserved', 'get_device_name', 'get_device_capability', 'get_device_properties']:
    try:
        print(f, repr(getattr(c, f)()))
    except Exception as e:
        print(f, type(e).__name__, str(e)[:300])
print(paddle.device.get_device(), paddle.device.is_compiled_with_cuda(), paddle.device.get_all_device_type(), paddle.disable_signal_handler())
print(paddle.in_dynamic_mode())
import paddle.io, paddle.metric, paddle.distribution
import paddle.device.cuda
try:
    import paddle.nonexist
except Exception as e:
    print(type(e).__name__, e)
print(paddle.framework.ParamAttr)
print(paddle.framework.in_dynamic_mode())
