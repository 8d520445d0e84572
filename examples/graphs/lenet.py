# LeNet on one MNIST-sized image: `gradrepl graph lenet.py --layers 1` draws its two Sequential
# blocks (features, fc) as one box each, with their parameters listed inside.
import paddle
import paddle.nn.functional as F
from paddle.vision.models import LeNet

paddle.seed(0)
model = LeNet()
x = paddle.rand([1, 1, 28, 28])
label = paddle.to_tensor([[3]])
logits = model(x)
loss = F.cross_entropy(logits, label)
loss.backward()
