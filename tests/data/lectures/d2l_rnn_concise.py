# d2l "concise RNN" / "GRU" / "LSTM" style: nn.RNN, nn.GRU, nn.LSTM layers with a linear head
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
vocab_size, num_hiddens, num_steps, batch_size = 12, 24, 6, 3
rnn_layer = nn.RNN(vocab_size, num_hiddens)
print(rnn_layer)
state = torch.zeros((1, batch_size, num_hiddens))
print(state.shape)
X = torch.rand(size=(num_steps, batch_size, vocab_size))
Y, state_new = rnn_layer(X, state)
print(Y.shape, state_new.shape)
print(torch.equal(Y[-1], state_new[0]))

class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        self.num_directions = 2 if self.rnn.bidirectional else 1
        self.linear = nn.Linear(self.num_hiddens * self.num_directions, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, batch_size=1):
        if not isinstance(self.rnn, nn.LSTM):
            return torch.zeros((self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens))
        return (torch.zeros((self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens)),
                torch.zeros((self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens)))

seq = torch.arange(61) % vocab_size
inputs = torch.stack([seq[i:i + num_steps] for i in range(0, 54, 6)])
targets = torch.stack([seq[i + 1:i + num_steps + 1] for i in range(0, 54, 6)])
print(inputs.shape, targets.shape)

for layer in [nn.RNN(vocab_size, num_hiddens), nn.GRU(vocab_size, num_hiddens),
              nn.LSTM(vocab_size, num_hiddens), nn.GRU(vocab_size, num_hiddens, num_layers=2)]:
    net = RNNModel(layer, vocab_size)
    loss = nn.CrossEntropyLoss()
    updater = torch.optim.SGD(net.parameters(), lr=1.0)
    for epoch in range(8):
        state = net.begin_state(batch_size=inputs.shape[0])
        y_hat, state = net(inputs, state)
        l = loss(y_hat, targets.T.reshape(-1))
        updater.zero_grad()
        l.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 1)
        updater.step()
    print(type(layer).__name__, f'{l.item():.5f}', [tuple(p.shape) for p in layer.parameters()][:2])
    state = net.begin_state(1)
    out = [0]
    for _ in range(10):
        y, state = net(torch.tensor([[out[-1]]]), state)
        out.append(int(y.argmax(dim=1).reshape(1)))
    print(out)
