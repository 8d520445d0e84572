import paddle
def show(tag, f):
    try:
        print(tag, f())
    except Exception as e:
        print(tag, type(e).__name__, repr(str(e)))
v3 = paddle.__version__.startswith('3')
coo = paddle.sparse.sparse_coo_tensor([[0, 1, 2, 2], [1, 3, 0, 2]], [1.0, -2.0, 3.0, 4.5], [3, 4])
coo2 = paddle.sparse.sparse_coo_tensor([[2, 0, 1], [0, 2, 3]], [0.5, 2.0, 1.0], [3, 4])
dup = paddle.sparse.sparse_coo_tensor([[1, 0, 1, 2], [1, 2, 1, 0]], [1.0, 2.0, 3.0, 4.0], [3, 4])
csr = paddle.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])
# CooToCsr of unsorted / repeated rows: crows as if sorted
show('to csr unsorted', lambda: coo2.to_sparse_csr())
show('to csr dup', lambda: dup.to_sparse_csr())
for op in ('add', 'subtract', 'multiply', 'divide'):
    show(op + ' coo', lambda: getattr(paddle.sparse, op)(coo, coo2))
    show(op + ' csr', lambda: getattr(paddle.sparse, op)(csr, coo2.to_sparse_csr()))
show('add same indices', lambda: paddle.sparse.add(dup, dup))
show('add dup', lambda: paddle.sparse.add(coo2, dup))
x3 = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [[1.0, 2.0], [3.0, 4.0]], [2, 2, 2])
y3 = paddle.sparse.sparse_coo_tensor([[1], [0]], [[10.0, 20.0]], [2, 2, 2])
show('add dense dims', lambda: paddle.sparse.add(x3, y3))
show('divide dense dims', lambda: paddle.sparse.divide(x3, y3))
show('add dense', lambda: paddle.sparse.add(coo, paddle.ones([3, 4])))
show('add mixed', lambda: paddle.sparse.add(coo, csr))
show('transpose coo', lambda: paddle.sparse.transpose(coo, [1, 0]))
show('transpose csr', lambda: paddle.sparse.transpose(csr, [1, 0]))
show('reshape coo', lambda: paddle.sparse.reshape(coo, [2, 6]))
show('reshape -1', lambda: paddle.sparse.reshape(coo, [-1, 3]))
show('reshape csr', lambda: paddle.sparse.reshape(csr, [4, 3]))
show('sum', lambda: paddle.sparse.sum(coo))
show('sum 0', lambda: paddle.sparse.sum(coo, axis=0))
show('sum 1 keepdim', lambda: paddle.sparse.sum(coo, axis=1, keepdim=True))
show('sum csr -1', lambda: paddle.sparse.sum(csr, axis=-1))
show('sum csr', lambda: paddle.sparse.sum(csr))
show('sum 3d', lambda: paddle.sparse.sum(paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0], [0, 2]], [1.0, 2.0], [2, 2, 3]), axis=1))
show('softmax csr', lambda: paddle.sparse.nn.functional.softmax(csr))
show('softmax coo', lambda: paddle.sparse.nn.functional.softmax(coo))
show('Softmax', lambda: paddle.sparse.nn.Softmax()(coo2.to_sparse_csr()))
show('softmax axis 0', lambda: paddle.sparse.nn.functional.softmax(csr, axis=0))
d = paddle.to_tensor([[0.5, 0.0, -1.25, 3.0, 0.0, 7.5], [0.0, 0.0, 0.0, 0.0, 0.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]], dtype='float64')
show('softmax f64 coo', lambda: paddle.sparse.nn.functional.softmax(d.to_sparse_coo(2)).values().numpy().tolist())
show('is_same_shape', lambda: paddle.sparse.is_same_shape(coo, csr))
y = paddle.ones([4, 2])
show('matmul coo', lambda: paddle.sparse.matmul(coo, y))
show('matmul csr', lambda: paddle.sparse.matmul(csr, y))
show('mv', lambda: paddle.sparse.mv(csr, paddle.ones([4])))
show('addmm', lambda: paddle.sparse.addmm(paddle.ones([3, 2]), csr, y))
for name, f in [('*2', lambda: coo * 2.0), ('2*', lambda: 2.0 * csr), ('+1', lambda: coo + 1.0), ('1-', lambda: 1.0 - csr), ('neg', lambda: -coo), ('/2', lambda: coo / 2.0)]:
    show(name, f)
if v3:
    show('coo + coo', lambda: coo + coo2)
    show('**2', lambda: coo ** 2)
    show('* dense', lambda: coo * paddle.ones([3, 4]))
import paddle
coo = paddle.sparse.sparse_coo_tensor([[0, 1, 2, 2, 0], [1, 3, 0, 2, 2]], [1.0, -2.0, 3.0, 4.5, 6.0], [3, 4])
csr = paddle.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])
for args in [([0], [1], [3]), ([1], [1], [3]), ([0, 1], [0, 1], [2, 4]), ([1], [-3], [-1]), ([0], [0], [10]), ([1], [2], [2])]:
    for t in (coo, csr):
        try:
            print(args, paddle.sparse.slice(t, *args))
        except Exception as e:
            print(args, type(e).__name__, repr(str(e))[:300])
x3 = paddle.sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 2], [0, 1, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [2, 3, 2, 2])
v = paddle.to_tensor([1.0, -2.0, 3.0, 4.5, 6.0], stop_gradient=False)
s = paddle.sparse.slice(paddle.sparse.sparse_coo_tensor([[0, 1, 2, 2, 0], [1, 3, 0, 2, 2]], v, [3, 4], stop_gradient=False), [1], [1], [3])
print(s.stop_gradient)
