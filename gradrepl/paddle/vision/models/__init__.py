"""``paddle.vision.models``: VGG 11/13/16/19 (optionally with batch norm), LeNet, ResNet."""
from .lenet import LeNet
from .resnet import (BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50,
                     resnet101, resnet152)
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "LeNet", "ResNet", "BasicBlock",
           "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152"]
