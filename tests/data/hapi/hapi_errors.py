import os
import shutil
import tempfile

import numpy as np
import paddle
work = tempfile.mkdtemp()
net = paddle.nn.Sequential(paddle.nn.Linear(6, 3))
m = paddle.Model(net)
x = paddle.rand([2, 6]); y = paddle.zeros([2, 1], 'int64')
def show(f):
    try:
        r = f()
        print("ok", r)
    except BaseException as e:
        print(type(e).__name__, str(e)[:200])
show(lambda: m.train_batch([x], [y]))
show(lambda: m.eval_batch([x], [y]))
show(lambda: m.prepare(loss=3))
show(lambda: m.prepare(metrics=[3]))
show(lambda: m.load(os.path.join(work, 'nonexist', 'zz')))
m.prepare(paddle.optimizer.SGD(parameters=m.parameters()), paddle.nn.CrossEntropyLoss())
show(lambda: m.fit())
show(lambda: m.fit(paddle.io.TensorDataset([x, y]), batch_size=[1, 2, 3]))
show(lambda: m.save(os.path.join(work, 'dir') + os.sep))
show(lambda: type(m.eval_batch([x], [y])))
show(lambda: m.fit(paddle.io.TensorDataset([x, y]), num_iters=0))
m.prepare()
show(lambda: m.eval_batch([x], [y]))
show(lambda: type(m.predict_batch(x)))
show(lambda: m.evaluate(paddle.io.TensorDataset([x, y]), verbose=0))
print(sorted(os.listdir(os.path.join(work, "dir"))))
m.save(os.path.join(work, "a"))
m2 = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(6, 4)))
show(lambda: m2.load(os.path.join(work, "a")))
show(lambda: m2.load(os.path.join(work, "a.txt")))
show(lambda: m.load(os.path.join(work, "a.pdparams")))
shutil.rmtree(work)
