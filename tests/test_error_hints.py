"""Paddle's ``[Hint: ...]`` line under its broadcast, matmul and freed-graph messages, as real
Paddle 3.3.1 and 2.6.2 print it (recorded from both here, byte for byte): the shell, replay and
the notebook show the same message (issue 30 item 9)."""
from __future__ import annotations

import pytest

CALLS = [
    lambda paddle: paddle.ones([2, 3]) + paddle.ones([4]),
    lambda paddle: paddle.ones([1, 3]) * paddle.ones([2, 2, 4]),
    lambda paddle: paddle.matmul(paddle.ones([2, 3]), paddle.ones([2, 3])),
    lambda paddle: paddle.matmul(paddle.ones([3]), paddle.ones([2])),
    lambda paddle: paddle.matmul(paddle.ones([2, 3]), paddle.ones([2])),
    lambda paddle: paddle.matmul(paddle.ones([2, 2, 3]), paddle.ones([3, 3, 4])),
]

REAL = {
    "3": ["ValueError '(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast together with the shape of X = [2, 3] and the shape of Y = [4]. Received [3] in X is not equal to [4] in Y at i:1.\\n  [Hint: Expected x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] != 0) || (y_dims_array[i] <= 1 && y_dims_array[i] != 0) == true, but received x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] != 0) || (y_dims_array[i] <= 1 && y_dims_array[i] != 0):0 != true:1.] (at /paddle/paddle/phi/kernels/funcs/common_shape.h:72)\\n'", "ValueError '(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast together with the shape of X = [1, 3] and the shape of Y = [2, 2, 4]. Received [3] in X is not equal to [4] in Y at i:2.\\n  [Hint: Expected x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] != 0) || (y_dims_array[i] <= 1 && y_dims_array[i] != 0) == true, but received x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] != 0) || (y_dims_array[i] <= 1 && y_dims_array[i] != 0):0 != true:1.] (at /paddle/paddle/phi/kernels/funcs/common_shape.h:72)\\n'", "ValueError '(InvalidArgument) In operator matmul, the [1] dimension of Input(X) must be equal to the [0] dimension of Input(Y). But receiving the [1]dimension of Input(X) is [3], and the [0] dimension of Input(Y) is [2].\\n  [Hint: Expected K_lhs == K_rhs, but received K_lhs:3 != K_rhs:2.] (at /paddle/paddle/phi/infermeta/binary.cc:3087)\\n'", "ValueError '(InvalidArgument) In operator matmul, the [0] dimension of Input(X) must be equal to the [0] dimension of Input(Y). But receiving the [0]dimension of Input(X) is [3], and the [0] dimension of Input(Y) is [2].\\n  [Hint: Expected K_lhs == K_rhs, but received K_lhs:3 != K_rhs:2.] (at /paddle/paddle/phi/infermeta/binary.cc:3087)\\n'", "ValueError '(InvalidArgument) In operator matmul, the [1] dimension of Input(X) must be equal to the [0] dimension of Input(Y). But receiving the [1]dimension of Input(X) is [3], and the [0] dimension of Input(Y) is [2].\\n  [Hint: Expected K_lhs == K_rhs, but received K_lhs:3 != K_rhs:2.] (at /paddle/paddle/phi/infermeta/binary.cc:3087)\\n'", 'ValueError "(InvalidArgument) Input(X) and Input(Y) has error dim. X_broadcast\'s shape[0] must be equal to Y_broadcast\'s shape[0], or X_broadcast\'s shape[0] <= 1, or Y_broadcast\'s shape[0] <= 1, but received X_broadcast\'s shape[0] = [2]received Y_broadcast\'s shape[0] = [3].\\n  [Hint: Expected x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || y_bd_dims[i] <= 1 == true, but received x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || y_bd_dims[i] <= 1:0 != true:1.] (at /paddle/paddle/phi/kernels/impl/matmul_kernel_impl.h:63)\\n"', "SystemError '(Fatal) The TensorWrappers of MultiplyGradNode do not exist. This may be because:\\nYou calculate backward twice for the same subgraph without setting retain_graph=True. Please set retain_graph=True in the first backward/grad call.\\n\\n  [Hint: Expected node->IsTensorWrappersCleared() != true, but received node->IsTensorWrappersCleared():1 == true:1.] (at /paddle/paddle/fluid/eager/backward.cc:204)\\n'"],
    "2.6": ["ValueError '(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast together with the shape of X = [2, 3] and the shape of Y = [4]. Received [3] in X is not equal to [4] in Y at i:1.\\n  [Hint: Expected x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1 == true, but received x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1:0 != true:1.] (at /paddle/paddle/phi/kernels/funcs/common_shape.h:86)\\n'", "ValueError '(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast together with the shape of X = [1, 3] and the shape of Y = [2, 2, 4]. Received [3] in X is not equal to [4] in Y at i:2.\\n  [Hint: Expected x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1 == true, but received x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1:0 != true:1.] (at /paddle/paddle/phi/kernels/funcs/common_shape.h:86)\\n'", 'ValueError "(InvalidArgument) Input(Y) has error dim. Y\'dims[0] must be equal to 3, but received Y\'dims[0] is 2.\\n  [Hint: Expected y_dims[y_ndim - 2] == K, but received y_dims[y_ndim - 2]:2 != K:3.] (at /paddle/paddle/phi/kernels/impl/matmul_kernel_impl.h:329)\\n"', 'ValueError "(InvalidArgument) X\'s numbers must be equal to Y\'s numbers, when X/Y\'s dims =1. But received X has [3] elements, received Y has [2] elements.\\n  [Hint: Expected M == N, but received M:3 != N:2.] (at /paddle/paddle/phi/kernels/impl/matmul_kernel_impl.h:132)\\n"', 'ValueError "(InvalidArgument) Input(X) has error dim.X\'dims[1] must be equal to 2But received X\'dims[1] is 3\\n  [Hint: Expected x_dims[x_ndim - 1] == N, but received x_dims[x_ndim - 1]:3 != N:2.] (at /paddle/paddle/phi/kernels/impl/matmul_kernel_impl.h:250)\\n"', 'ValueError "(InvalidArgument) Input(X) and Input(Y) has error dim. X_broadcast\'s shape[0] must be equal to Y_broadcast\'s shape[0], or X_broadcast\'s shape[0] <= 1, or Y_broadcast\'s shape[0] <= 1, but received X_broadcast\'s shape[0] = [2]received Y_broadcast\'s shape[0] = [3].\\n  [Hint: Expected x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || y_bd_dims[i] <= 1 == true, but received x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || y_bd_dims[i] <= 1:0 != true:1.] (at /paddle/paddle/phi/kernels/impl/matmul_kernel_impl.h:65)\\n"', "SystemError '(Fatal) The TensorWrappers of MultiplyGradNode do not exist. This may be because:\\nYou calculate backward twice for the same subgraph without setting retain_graph=True. Please set retain_graph=True in the first backward/grad call.\\n\\n  [Hint: Expected node->IsTensorWrappersCleared() != true, but received node->IsTensorWrappersCleared():1 == true:1.] (at /paddle/paddle/fluid/eager/backward.cc:83)\\n'"],
}


def _freed(paddle):
    a = paddle.to_tensor(2.0, stop_gradient=False)
    b = a * a
    b.backward()
    b.backward()


@pytest.mark.parametrize("key", sorted(REAL))
def test_messages_carry_paddles_hint_line(key):
    import gradrepl.paddle as paddle
    from gradrepl.paddle import state

    state.reset(key)
    try:
        got = []
        for call in CALLS + [_freed]:
            with pytest.raises(Exception) as info:
                call(paddle)
            got.append(type(info.value).__name__ + " " + repr(str(info.value)))
        assert got == REAL[key]
    finally:
        state.reset(None)
