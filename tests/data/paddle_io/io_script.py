"""paddle.io calls for tests/test_paddle_io.py (run with real Paddle and gradrepl)."""
import numpy as np
import paddle
from paddle.io import Dataset, TensorDataset, DataLoader, random_split, Subset, BatchSampler, RandomSampler, SequenceSampler

class DS(Dataset):
    def __init__(self, n):
        self.n = n
    def __getitem__(self, i):
        return np.full([3], i, dtype='float32'), i
    def __len__(self):
        return self.n

ds = DS(10)
dl = DataLoader(ds, batch_size=4)
print(len(dl))
for b in dl:
    print(type(b).__name__, [type(x).__name__ for x in b])
    print(b)
np.random.seed(0)
dl = DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)
print(len(dl))
for x, y in dl:
    print(y.numpy().tolist())
paddle.seed(0)
for x, y in dl:
    print(y.numpy().tolist())
np.random.seed(0)
print(list(RandomSampler(ds)))
print(list(SequenceSampler(ds)))
print(list(BatchSampler(ds, batch_size=3)))
print(list(BatchSampler(sampler=SequenceSampler(ds), batch_size=3, drop_last=True)))
X = paddle.arange(12, dtype='float32').reshape([6, 2])
Y = paddle.arange(6).reshape([6, 1])
td = TensorDataset([X, Y])
print(len(td), td[2])
for b in DataLoader(td, batch_size=4, return_list=True):
    print(b)
class DS2(Dataset):
    def __getitem__(self, i):
        return {'a': float(i), 'b': [i, i+1], 's': 'x%d' % i, 't': paddle.to_tensor([i, i], dtype='float32')}
    def __len__(self):
        return 3
for b in DataLoader(DS2(), batch_size=3):
    print(b)
for b in DataLoader(ds, batch_size=2, collate_fn=lambda items: items):
    print(type(b), len(b), type(b[0]), type(b[0][0]))
    break
for b in DataLoader(ds, batch_size=None):
    print(b)
    break
paddle.seed(1)
np.random.seed(1)
a, b = random_split(ds, [7, 3])
print(type(a).__name__, len(a), len(b), sorted(a.indices + b.indices) == list(range(10)))
s = Subset(ds, [1, 3])
print(len(s), s[1])
import re
print(re.sub('0x[0-9a-f]+', 'ADDR', repr(DataLoader(ds))), re.sub('0x[0-9a-f]+', 'ADDR', repr(td)))
print(len(DataLoader(ds, batch_size=3, drop_last=True)), len(BatchSampler(ds, batch_size=4)))

class Stream(paddle.io.IterableDataset):
    def __iter__(self):
        for i in range(5):
            yield np.array([i, i * 2], dtype='int32')
for b in DataLoader(Stream(), batch_size=2, drop_last=False):
    print(b.shape, b.dtype, b.numpy().tolist())
print(len(paddle.io.ConcatDataset([ds, ds])), paddle.io.ConcatDataset([ds, ds])[12][1])
print(paddle.io.ComposeDataset([ds, ds])[3][1::2])
try:
    len(DataLoader(Stream(), batch_size=2))
except ValueError as e:
    print('ValueError', e)
try:
    DataLoader(Stream(), shuffle=True)
except ValueError as e:
    print('ValueError', e)
try:
    Dataset()[0]
except NotImplementedError as e:
    print('NotImplementedError', e)
np.random.seed(3)
ws = paddle.io.WeightedRandomSampler(np.array([0.1, 0.2, 0.7]), 6)
print(len(ws), list(ws))
try:
    list(paddle.io.WeightedRandomSampler([0.1, 0.2, 0.7], 6))
except AttributeError as e:
    print('AttributeError', e)
