# d2l "RNN from scratch" style: a tiny vocabulary, one-hot inputs, gradient clipping, prediction
import math
import collections
import torch
from torch import nn
from torch.nn import functional as F

text = ("the time traveller for so it will be convenient to speak of him was expounding "
        "a recondite matter to us his grey eyes shone and twinkled and his usually pale face "
        "was flushed and animated the fire burned brightly") * 3
tokens = list(text)
counter = collections.Counter(tokens)
idx_to_token = ['<unk>'] + [t for t, _ in sorted(counter.items(), key=lambda x: (-x[1], x[0]))]
token_to_idx = {t: i for i, t in enumerate(idx_to_token)}
corpus = [token_to_idx[t] for t in tokens]
vocab_size = len(idx_to_token)
print(vocab_size, idx_to_token[:8], corpus[:10])

print(F.one_hot(torch.tensor([0, 2]), vocab_size))
X = torch.arange(10).reshape((2, 5))
print(F.one_hot(X.T, 28).shape)

def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size
    def normal(shape):
        return torch.randn(size=shape) * 0.01
    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens)
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params

def init_rnn_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)

def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)

class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens)
        self.init_state, self.forward_fn = init_state, forward_fn
    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)
    def begin_state(self, batch_size):
        return self.init_state(batch_size, self.num_hiddens)

torch.manual_seed(0)
num_hiddens = 64
net = RNNModelScratch(vocab_size, num_hiddens, get_params, init_rnn_state, rnn)
state = net.begin_state(X.shape[0])
Y, new_state = net(X, state)
print(Y.shape, len(new_state), new_state[0].shape)

def predict(prefix, num_preds, net):
    state = net.begin_state(batch_size=1)
    outputs = [token_to_idx[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))
    for y in prefix[1:]:
        _, state = net(get_input(), state)
        outputs.append(token_to_idx[y])
    for _ in range(num_preds):
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return ''.join([idx_to_token[i] for i in outputs])

print(repr(predict('time ', 10, net)))

def grad_clipping(params, theta):
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm

batch_size, num_steps = 4, 10
def seq_data_iter_sequential(corpus, batch_size, num_steps):
    num_tokens = ((len(corpus) - 1) // batch_size) * batch_size
    Xs = torch.tensor(corpus[:num_tokens]).reshape(batch_size, -1)
    Ys = torch.tensor(corpus[1:num_tokens + 1]).reshape(batch_size, -1)
    num_batches = Xs.shape[1] // num_steps
    for i in range(0, num_steps * num_batches, num_steps):
        yield Xs[:, i:i + num_steps], Ys[:, i:i + num_steps]

loss = nn.CrossEntropyLoss()
lr = 1.0
for epoch in range(15):
    state = None
    total, n = 0.0, 0
    for X, Y in seq_data_iter_sequential(corpus, batch_size, num_steps):
        if state is None:
            state = net.begin_state(batch_size=X.shape[0])
        else:
            for s in state:
                s.detach_()
        y = Y.T.reshape(-1)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        l.backward()
        norm = grad_clipping(net.params, 1)
        with torch.no_grad():
            for p in net.params:
                p -= lr * p.grad
                p.grad.zero_()
        total += l.item() * y.numel()
        n += y.numel()
    if (epoch + 1) % 3 == 0:
        print(f'epoch {epoch + 1} perplexity {math.exp(total / n):.4f} grad norm {norm.item():.4f}')
print(repr(predict('time ', 20, net)))
print(repr(predict('the ', 20, net)))
