"""``paddle.vision.models``: the model zoo of Paddle 3.3.1 (51 names): ResNet / ResNeXt / wide
ResNet, VGG, MobileNet V1 / V2 / V3, LeNet, DenseNet, AlexNet, InceptionV3, SqueezeNet,
GoogLeNet, ShuffleNetV2, with Paddle's layer structure and parameter names. No weights are
downloaded: ``pretrained=True`` raises."""
from .alexnet import AlexNet, alexnet
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201, densenet264
from .googlenet import GoogLeNet, googlenet
from .inceptionv3 import InceptionV3, inception_v3
from .lenet import LeNet
from .mobilenetv1 import MobileNetV1, mobilenet_v1
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .mobilenetv3 import (MobileNetV3Large, MobileNetV3Small, mobilenet_v3_large,
                          mobilenet_v3_small)
from .resnet import (BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50,  # noqa
                     resnet101, resnet152, resnext50_32x4d, resnext50_64x4d, resnext101_32x4d,
                     resnext101_64x4d, resnext152_32x4d, resnext152_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .shufflenetv2 import (ShuffleNetV2, shufflenet_v2_swish, shufflenet_v2_x0_5,
                           shufflenet_v2_x0_25, shufflenet_v2_x0_33, shufflenet_v2_x1_0,
                           shufflenet_v2_x1_5, shufflenet_v2_x2_0)
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
           "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
           "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2", "VGG",
           "vgg11", "vgg13", "vgg16", "vgg19", "MobileNetV1", "mobilenet_v1", "MobileNetV2",
           "mobilenet_v2", "MobileNetV3Small", "MobileNetV3Large", "mobilenet_v3_small",
           "mobilenet_v3_large", "LeNet", "DenseNet", "densenet121", "densenet161",
           "densenet169", "densenet201", "densenet264", "AlexNet", "alexnet", "InceptionV3",
           "inception_v3", "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "GoogLeNet",
           "googlenet", "ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
           "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
           "shufflenet_v2_swish"]


from ...names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
