import paddle
x = paddle.to_tensor(3.0); i = paddle.to_tensor(3)
ops = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
       "add": lambda a, b: a + b, "pow": lambda a, b: a ** b, "fd": lambda a, b: a // b, "mod": lambda a, b: a % b, "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
       "div": lambda a, b: a / b, "mul": lambda a, b: a * b}
for n, f in ops.items():
    row = []
    for t in (x, i):
        for s in (True, 2, 2.5):
            for rev in (False, True):
                try:
                    r = f(s, t) if rev else f(t, s)
                    row.append(str(r.shape))
                except Exception as e:
                    row.append(type(e).__name__[:4])
    print(n, " ".join(row))
