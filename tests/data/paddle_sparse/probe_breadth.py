# paddle.sparse breadth (SPSWEEP sweep): constructors' errors, layout errors, values of a
# stop_gradient=False tensor, divide patterns, scalar divide, product/norm/attention errors
import paddle


def show(f):
    try:
        r = f()
        if r is not None:
            print(r)
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, str(e).rstrip("\n").split("\n")[0])


i = [[0, 1, 2], [1, 0, 2]]
x = paddle.sparse.sparse_coo_tensor(i, [1., -2., 3.], [3, 3])
y = paddle.sparse.sparse_coo_tensor(i, [4., 5., -6.], [3, 3])
show(lambda: paddle.sparse.sparse_coo_tensor([[0., 1.]], [1., 2.], [2]))
show(lambda: paddle.sparse.sparse_coo_tensor(i, [1., 2., 3.], [2, 2]))
show(lambda: paddle.sparse.sparse_coo_tensor([0, 1], [1., 2.], [2]))
show(lambda: paddle.sparse.sparse_csr_tensor([0, 2], [0, 2, 1], [1., 2., 3.], [2, 3]))
show(lambda: x.to_sparse_csr().indices())
show(lambda: x.crows())
show(lambda: x.detach())
show(lambda: paddle.sparse.divide(x, y))
show(lambda: paddle.sparse.divide(x, 2.))
show(lambda: paddle.sparse.divide(x.to_sparse_csr(), y.to_sparse_csr()))
show(lambda: paddle.sparse.matmul(x, y))
show(lambda: paddle.sparse.masked_matmul(paddle.ones([3, 2]), paddle.ones([2, 3]),
                                         x.to_sparse_csr()))
show(lambda: paddle.sparse.sin(paddle.ones([2])))
show(lambda: paddle.sparse.nn.functional.relu(paddle.ones([2])))
show(lambda: paddle.ones([1, 1, 2, 2]).to_sparse_csr())
show(lambda: (paddle.ones([2]).is_dense(), x.is_dense()))
s = paddle.sparse.sparse_coo_tensor(i, [1., -2., 3.], [3, 3], stop_gradient=False)
show(lambda: (s.values().stop_gradient, s.to_dense().stop_gradient))
z = paddle.sparse.sum(s)
z.backward()
show(lambda: s.grad)
show(lambda: paddle.sparse.nn.SyncBatchNorm(2)(paddle.ones([1, 2, 2, 2, 2]).to_sparse_coo(4)))
show(lambda: paddle.sparse.nn.BatchNorm(3))
