# forward output shapes of the model zoo on small inputs
import paddle
import paddle.vision.models as M
paddle.seed(0)
cases = [("alexnet", [1, 3, 224, 224]), ("mobilenet_v1", [1, 3, 32, 32]), ("mobilenet_v2", [1, 3, 32, 32]),
         ("mobilenet_v3_small", [1, 3, 32, 32]), ("mobilenet_v3_large", [1, 3, 32, 32]), ("squeezenet1_0", [1, 3, 64, 64]),
         ("squeezenet1_1", [1, 3, 64, 64]), ("shufflenet_v2_x0_25", [1, 3, 32, 32]), ("shufflenet_v2_swish", [1, 3, 32, 32]),
         ("densenet121", [1, 3, 32, 32]), ("googlenet", [1, 3, 224, 224]), ("resnext50_32x4d", [1, 3, 32, 32]),
         ("wide_resnet50_2", [1, 3, 32, 32])]
for name, shape in cases:
    m = getattr(M, name)(num_classes=5)
    m.eval()
    out = m(paddle.rand(shape))
    print(name, [list(o.shape) for o in out] if isinstance(out, tuple) else list(out.shape))
print([list(o.shape) for o in [M.MobileNetV2(num_classes=0, with_pool=False)(paddle.rand([1, 3, 32, 32]))]])
print(list(M.inception_v3(num_classes=3)(paddle.rand([1, 3, 75, 75])).shape))
