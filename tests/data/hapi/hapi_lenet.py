import os
import shutil
import tempfile

import numpy as np
import paddle
from paddle.vision.transforms import Normalize
paddle.seed(4); np.random.seed(4)
work = tempfile.mkdtemp()
tf = Normalize(mean=[127.5], std=[127.5], data_format='CHW')
class DS(paddle.io.Dataset):
    def __init__(self, n):
        self.x = np.random.randint(0, 256, (n, 1, 28, 28)).astype('float32')
        self.y = np.random.randint(0, 10, (n, 1)).astype('int64')
    def __getitem__(self, i):
        return tf(self.x[i]), self.y[i]
    def __len__(self):
        return len(self.x)
train, test = DS(128), DS(64)
lenet = paddle.vision.models.LeNet(num_classes=10)
model = paddle.Model(lenet)
model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
model.fit(train, epochs=2, batch_size=32, verbose=1)
res = model.evaluate(test, batch_size=32, verbose=1)
print(round(res['loss'][0], 5), res['acc'])
model.save(os.path.join(work, 'mnist'))
model2 = paddle.Model(paddle.vision.models.LeNet(num_classes=10))
model2.prepare(paddle.optimizer.Adam(parameters=model2.parameters()), paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
model2.load(os.path.join(work, 'mnist'))
res2 = model2.evaluate(test, batch_size=32, verbose=0)
print(res2['loss'] == res['loss'], res2['acc'])
r = model2.predict(test, batch_size=64)
print(np.argmax(r[0][0], -1)[:20])
print(sorted(os.listdir(work)))
shutil.rmtree(work)
