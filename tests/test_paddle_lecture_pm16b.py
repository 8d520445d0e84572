"""Issue 28, Paddle lecture round 16 (group B: the paper-reproduction alignment guide, X2Paddle's
API mapping, paddle.vision.ops in detection lectures, less common nn.functional): each difference
found, checked against what real Paddle 3.3.1 and 2.6.2 printed here (recorded in the comments).
"""
import warnings

import gradrepl.paddle as paddle


# ------------------------------------------------ Layer.to resets Python's warning registries
def test_layer_to_shows_batchnorm_warning_again(profile):
    # real 3.3.1 and 2.6.2: BatchNorm1D called twice warns once; after bn.to(dtype='float64')
    # (Paddle casts inside warnings.catch_warnings()) the next call warns again: 2 warnings.
    # An optimizer, set_state_dict or a new layer in between does not: 1 warning.
    bn = paddle.nn.BatchNorm1D(3)
    x = paddle.ones([2, 3])
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("default")
        bn(x)
        bn(x)
        paddle.optimizer.SGD(0.1, parameters=bn.parameters())
        bn.set_state_dict(bn.state_dict())
        bn(x)
        assert len(got) == 1
        bn.to(dtype="float64")
        bn(x.astype("float64"))
        bn.to()                       # nothing to do: no catch_warnings in Paddle either
        bn(x.astype("float64"))
    assert [str(w.message) for w in got] == [
        "When training, we now always track global mean and variance."] * 2
