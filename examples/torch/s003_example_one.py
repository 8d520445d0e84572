# Seed 003 (PyTorch autograd), example one (示例一), as the article wrote it. Run it with
#     gradrepl run examples/torch/s003_example_one.py
from torch.autograd import Variable, Function
import torch
# 生成Variable
x = Variable(torch.ones(2, 2), requires_grad=True)  # requires_grad表示在backward是否计算其梯度
print(x)
print('-----------------------')
# 查看Variable的属性.data, .grad, .creator
print(x.data)  # Variable保存的值
print(x.grad)  # 由于目前还未进行.backward()运算，因此不存在梯度
# creator属性名称已经改为grad_fn
print(x.grad_fn)  # 可获取y的已创建Function属性的属性Variable
print('-----------------------')
# Variable进行运算
y = x + 2
print(y)
print(x.grad_fn)
