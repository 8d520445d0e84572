# A small MLP: `gradrepl graph mlp.py --tensor loss --collapse` draws each Layer call as one node.
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.seed(0)


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


model = MLP()
x = paddle.rand([5, 4])
label = paddle.to_tensor([0, 2, 1, 1, 0])
logits = model(x)
loss = F.cross_entropy(logits, label)
loss.backward()
