import paddle
from paddle.vision.models import vgg11
import paddle.nn.functional as F
import numpy as np
print(paddle.__version__)
model = vgg11()
x = paddle.rand([1,3,224,224])
label = paddle.randint(0,1000)
print(label)
predicts = model(x)
# the article prints predicts and loss; their values depend on the random weights, so only
# what does not is printed here
print(predicts.shape, predicts.dtype, predicts.stop_gradient)
loss = F.cross_entropy(predicts, label)
print(loss.shape, loss.dtype, loss.stop_gradient)
loss.backward()
optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
optim.step()
print(model.features[0].weight.grad.shape, model.classifier[6].bias.grad.shape)
