"""paddle.vision.models against Paddle 3.3.1: the 51 exported names, every builder's
state_dict keys, shapes and parameter count (num_classes=7, recorded from Paddle in
tests/data/vision/models_state_dict.json; the big ones only with GRADREPL_SLOW=1), forward
output shapes on small inputs, and pretrained=True refused without a download."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from gradrepl.paddle.vision import models as M
from gradrepl.runner import run_captured

DATA = os.path.join(os.path.dirname(__file__), "data", "vision")


@pytest.fixture(autouse=True)
def _default_state_afterwards():
    """The scripts run under profile 3; later tests expect the default profile back."""
    yield
    from gradrepl.paddle import state

    state.reset(None)
with open(os.path.join(DATA, "models_state_dict.json"), encoding="utf-8") as _f:
    REAL = json.load(_f)

REAL_ALL = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
            "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
            "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2", "VGG",
            "vgg11", "vgg13", "vgg16", "vgg19", "MobileNetV1", "mobilenet_v1", "MobileNetV2",
            "mobilenet_v2", "MobileNetV3Small", "MobileNetV3Large", "mobilenet_v3_small",
            "mobilenet_v3_large", "LeNet", "DenseNet", "densenet121", "densenet161",
            "densenet169", "densenet201", "densenet264", "AlexNet", "alexnet", "InceptionV3",
            "inception_v3", "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "GoogLeNet",
            "googlenet", "ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
            "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
            "shufflenet_v2_x2_0", "shufflenet_v2_swish"]
QUICK = ["mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
         "squeezenet1_0", "squeezenet1_1", "shufflenet_v2_x0_25", "shufflenet_v2_swish",
         "densenet121", "googlenet", "inception_v3", "resnet18", "resnext50_32x4d", "alexnet"]
BUILDERS = [n for n in REAL_ALL if n[0].islower()]


def test_exports_the_51_names_of_paddle():
    assert M.__all__ == REAL_ALL
    assert all(hasattr(M, n) for n in REAL_ALL)


@pytest.mark.parametrize("name", [n if n in QUICK else pytest.param(
    n, marks=pytest.mark.skipif(not os.environ.get("GRADREPL_SLOW"), reason="GRADREPL_SLOW=1"))
    for n in BUILDERS])
def test_state_dict_keys_and_shapes_as_paddle(name):
    kw = {"num_classes": 7, "scale": 0.5} if name == "mobilenet_v1" else {"num_classes": 7}
    model = getattr(M, name)(**kw)
    got = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    assert got == REAL[name]
    assert sum(int(np.prod(p.shape)) for p in model.parameters()) == REAL[name + "#params"]


@pytest.mark.slow
def test_forward_shapes_as_paddle():
    out, err = run_captured(os.path.join(DATA, "forward.py"), "3")
    assert err is None, repr(err)
    with open(os.path.join(DATA, "forward.out"), encoding="utf-8") as f:
        assert out == f.read()


@pytest.mark.parametrize("name", ["alexnet", "mobilenet_v1", "mobilenet_v2",
                                  "mobilenet_v3_small", "squeezenet1_1", "shufflenet_v2_x0_25",
                                  "densenet121", "googlenet", "inception_v3", "resnext50_32x4d"])
def test_pretrained_weights_are_refused(name):
    with pytest.raises(RuntimeError, match="gradrepl does not download pretrained weights"):
        getattr(M, name)(pretrained=True)


def test_pretrained_without_published_weights_is_paddles_assertion():
    with pytest.raises(AssertionError, match=r"^mobilenetv2_0\.5 model do not have a pretrained "
                       r"model now, you should set pretrained=False$"):
        M.mobilenet_v2(pretrained=True, scale=0.5)
