# resnet18 on one small image: `gradrepl graph resnet18.py --layers 1` draws the stem and the
# four stages as one box each; `--layers 2` each BasicBlock, with the skip connections between.
import paddle
import paddle.nn.functional as F
from paddle.vision.models import resnet18

paddle.seed(0)
model = resnet18()
x = paddle.rand([1, 3, 64, 64])
label = paddle.to_tensor([[7]])
logits = model(x)
loss = F.cross_entropy(logits, label)
loss.backward()
