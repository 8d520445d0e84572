# torch.autograd.profiler: profile + record_function, key_averages().table() (its columns and
# layout; times differ run to run, so only the structure is printed), group_by_input_shape.
import torch
from torch.autograd import profiler

x = torch.randn(10, 10, requires_grad=True)
with profiler.profile(record_shapes=True) as prof:
    with profiler.record_function("my_block"):
        y = (x @ x).relu().sum()
    y.backward()
print(type(prof).__name__, type(prof.key_averages()).__name__)
table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
lines = table.splitlines()
print([c.strip() for c in lines[1].split("  ") if c.strip()])
print(set(lines[0]) == {"-", " "}, lines[0] == lines[2] == lines[-2], len(lines))
print(lines[-1].startswith("Self CPU time total: "), table.endswith("\n"))
rows = {line.split()[0]: line.split()[-1] for line in lines[3:-2]}
print(rows["my_block"], "aten::mm" in rows or "aten::matmul" in rows)
keys = {e.key: e.count for e in prof.key_averages()}
print(keys["my_block"], keys["aten::relu"], keys["aten::sum"])
block = [e for e in prof.key_averages() if e.key == "my_block"][0]
print(type(block).__name__, block.cpu_time_total >= block.self_cpu_time_total > 0)
shaped = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total",
                                                            row_limit=3).splitlines()
print([c.strip() for c in shaped[1].split("  ") if c.strip()][-2:], len(shaped))
evaluate = [e.key for e in prof.key_averages() if e.key.startswith("autograd::engine::")]
print("autograd::engine::evaluate_function: ReluBackward0" in evaluate)
