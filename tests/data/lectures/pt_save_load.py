# PyTorch "Save and load the model" tutorial style, with an in-memory buffer
import io
import torch
from torch import nn

torch.manual_seed(0)

class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))

model = TinyNet()
print(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
X = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())

print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name] if var_name == 'param_groups' else len(optimizer.state_dict()[var_name]))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
model2 = TinyNet()
print(model2.load_state_dict(torch.load(buf, weights_only=True)))
model.eval()
model2.eval()
print(torch.equal(model(X), model2(X)))
print(model2.bn.running_mean)
print(model2.bn.num_batches_tracked)

buf = io.BytesIO()
torch.save({'epoch': 3, 'model_state_dict': model.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(), 'loss': loss}, buf)
buf.seek(0)
checkpoint = torch.load(buf, weights_only=True)
model3 = TinyNet()
optimizer3 = torch.optim.SGD(model3.parameters(), lr=0.5)
model3.load_state_dict(checkpoint['model_state_dict'])
optimizer3.load_state_dict(checkpoint['optimizer_state_dict'])
print(checkpoint['epoch'], checkpoint['loss'])
print(optimizer3.param_groups[0]['lr'], optimizer3.param_groups[0]['momentum'])
model3.train()
optimizer3.zero_grad()
nn.functional.cross_entropy(model3(X), y).backward()
optimizer3.step()
print(model3.fc2.bias)

buf = io.BytesIO()
torch.save(torch.arange(6).reshape(2, 3), buf)
buf.seek(0)
print(torch.load(buf))
missing = model3.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith('fc2')}, strict=False)
print(missing.missing_keys, missing.unexpected_keys)
