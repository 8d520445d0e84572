"""Docstrings in Paddle's layout (Args / Returns / Examples) for the most used creation and
math functions, written for gradrepl (not Paddle's text): ``help(paddle.ones)`` shows what the
function takes and gives, and an example whose printed output is what real Paddle 3.3.1 printed
for it (recorded when this table was written).

``apply(namespace)`` puts them on the functions of ``paddle``'s namespace (after ``docs.publish``).
"""
from __future__ import annotations

DOCSTRINGS = {
    'to_tensor': """\
Makes a Tensor from Python data, a numpy array or another Tensor (copying it).

Args:
    data (scalar|list|tuple|numpy.ndarray|Tensor): The values. Nested lists must be
        rectangular.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type. None: taken from
        data (Python floats give the default float type, Python ints int64).
    place (CPUPlace|CUDAPlace|str|None, optional): Where the tensor lives. gradrepl
        computes on the CPU.
    stop_gradient (bool, optional): Whether gradients stop at this tensor. Default True.

Returns:
    Tensor: a new tensor holding the data.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> t = paddle.to_tensor([[1, 2], [3, 4]], dtype='float32')
        >>> print(t)
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 2.],
                [3., 4.]])
        >>> print(paddle.to_tensor(2.5).shape)
        paddle.Size([])
""",
    'zeros': """\
Makes a Tensor of the given shape with every element 0.

Args:
    shape (list|tuple|Tensor): The size of each dimension of the result.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the zeros.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.zeros([2, 3]))
        Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0., 0., 0.],
                [0., 0., 0.]])
""",
    'ones': """\
Makes a Tensor of the given shape with every element 1.

Args:
    shape (list|tuple|Tensor): The size of each dimension of the result.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the ones.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.ones([2, 3], dtype='int64'))
        Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[1, 1, 1],
                [1, 1, 1]])
""",
    'full': """\
Makes a Tensor of the given shape with every element equal to fill_value.

Args:
    shape (list|tuple|Tensor): The size of each dimension of the result.
    fill_value (bool|float|int|Tensor): The value of every element.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the filled tensor.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.full([2, 2], 7.5))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[7.50000000, 7.50000000],
                [7.50000000, 7.50000000]])
""",
    'arange': """\
Evenly spaced values in [start, end), step apart. With one argument it is the end and
start is 0.

Args:
    start (float|int|Tensor, optional): The first value (or the end when end is None).
        Default 0.
    end (float|int|Tensor|None, optional): The end, not included.
    step (float|int|Tensor, optional): The spacing. Default 1.
    dtype (str|paddle.dtype|None, optional): The data type. None: int64 when all
        arguments are ints, else the default float type.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: a 1-D tensor of ceil((end - start) / step) values.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.arange(5))
        Tensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,
               [0, 1, 2, 3, 4])
        >>> print(paddle.arange(0, 1, 0.25))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.25000000, 0.50000000, 0.75000000])
""",
    'linspace': """\
num evenly spaced values from start to stop, both included.

Args:
    start (float|int|Tensor): The first value.
    stop (float|int|Tensor): The last value.
    num (int|Tensor): How many values.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: a 1-D tensor of num values.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.linspace(0, 1, 5))
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.25000000, 0.50000000, 0.75000000, 1.        ])
""",
    'eye': """\
A 2-D Tensor with ones on the diagonal and zeros elsewhere.

Args:
    num_rows (int): The number of rows.
    num_columns (int|None, optional): The number of columns. None: num_rows.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the [num_rows, num_columns] identity-like matrix.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.eye(3, 2))
        Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 0.],
                [0., 1.],
                [0., 0.]])
""",
    'rand': """\
Random values drawn uniformly from [0, 1), from the generator ``paddle.seed`` sets.

Args:
    shape (list|tuple|Tensor): The size of each dimension of the result.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the random values.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> paddle.seed(2024)
        >>> print(paddle.rand([2, 2]))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.93831158, 0.23659813],
                [0.10174140, 0.08467803]])
""",
    'randn': """\
Random values drawn from the standard normal distribution (mean 0, standard deviation
1).

Args:
    shape (list|tuple|Tensor): The size of each dimension of the result.
    dtype (str|paddle.dtype|np.dtype|None, optional): The data type of the result
        ('float32', 'int64', ...). None: the default float type
        (``paddle.get_default_dtype()``).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the random values.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> paddle.seed(2024)
        >>> print(paddle.randn([2, 2]))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[-0.07176629,  0.35241631],
                [-0.77873695,  0.27761805]])
""",
    'randint': """\
Random integers drawn uniformly from [low, high).

Args:
    low (int, optional): The smallest value (or the exclusive upper bound when high is
        None). Default 0.
    high (int|None, optional): The exclusive upper bound.
    shape (list|tuple|Tensor, optional): The shape of the result. Default [1].
    dtype (str|paddle.dtype|None, optional): 'int32' or 'int64' (the default).
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the random integers.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> paddle.seed(2024)
        >>> print(paddle.randint(0, 10, [5]))
        Tensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,
               [9, 2, 1, 0, 9])
""",
    'zeros_like': """\
A Tensor of x's shape filled with 0.

Args:
    x (Tensor): The input tensor.
    dtype (str|paddle.dtype|None, optional): The data type. None: x's.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the zeros.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([1.5, 2.5])
        >>> print(paddle.zeros_like(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 0.])
""",
    'ones_like': """\
A Tensor of x's shape filled with 1.

Args:
    x (Tensor): The input tensor.
    dtype (str|paddle.dtype|None, optional): The data type. None: x's.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the ones.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([1, 2, 3])
        >>> print(paddle.ones_like(x))
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [1, 1, 1])
""",
    'full_like': """\
A Tensor of x's shape filled with fill_value.

Args:
    x (Tensor): The input tensor.
    fill_value (bool|float|int): The value of every element.
    dtype (str|paddle.dtype|None, optional): The data type. None: x's.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the filled tensor.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[1.0, 2.0]])
        >>> print(paddle.full_like(x, 3.0))
        Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[3., 3.]])
""",
    'add': """\
x + y elementwise. The two shapes broadcast (numpy's rules).

Args:
    x (Tensor): The input tensor.
    y (Tensor): The second operand; broadcast against x.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the sums, of the broadcast shape.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> y = paddle.to_tensor([10.0, 20.0, 30.0])
        >>> print(paddle.add(x, y))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [11., 22., 33.])
""",
    'subtract': """\
x - y elementwise. The two shapes broadcast (numpy's rules).

Args:
    x (Tensor): The input tensor.
    y (Tensor): The second operand; broadcast against x.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the differences.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[5.0, 6.0], [7.0, 8.0]])
        >>> print(paddle.subtract(x, paddle.to_tensor([1.0, 2.0])))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[4., 4.],
                [6., 6.]])
""",
    'multiply': """\
x * y elementwise (not the matrix product: see ``paddle.matmul``). The two shapes
broadcast.

Args:
    x (Tensor): The input tensor.
    y (Tensor): The second operand; broadcast against x.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the products.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> print(paddle.multiply(x, x))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 4., 9.])
""",
    'divide': """\
x / y elementwise. The two shapes broadcast.

Args:
    x (Tensor): The input tensor.
    y (Tensor): The second operand; broadcast against x.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the quotients.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([2.0, 3.0, 4.0])
        >>> print(paddle.divide(x, paddle.to_tensor([4.0, 2.0, 1.0])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.50000000, 1.50000000, 4.        ])
""",
    'matmul': """\
The matrix product of x and y (batched over leading dimensions; 1-D operands are
vectors).

Args:
    x (Tensor): The input tensor.
    y (Tensor): The second operand; broadcast against x.
    transpose_x (bool, optional): Use x with its last two axes swapped. Default False.
    transpose_y (bool, optional): Use y with its last two axes swapped. Default False.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the product.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> y = paddle.to_tensor([[1.0], [1.0]])
        >>> print(paddle.matmul(x, y))
        Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[3.],
                [7.]])
""",
    'sum': """\
The sum of x's elements over the given axes.

Args:
    x (Tensor): The input tensor.
    axis (int|list|tuple|None, optional): The axes to reduce. None: all of them.
    dtype (str|paddle.dtype|None, optional): The data type of the result. None: x's
        (int64 for bool and int32 inputs).
    keepdim (bool, optional): Keep the reduced axes with size 1. Default False.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the sums.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> print(paddle.sum(x))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               10.)
        >>> print(paddle.sum(x, axis=0))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 6.])
""",
    'mean': """\
The arithmetic mean of x's elements over the given axes.

Args:
    x (Tensor): The input tensor.
    axis (int|list|tuple|None, optional): The axes to reduce. None: all of them.
    keepdim (bool, optional): Keep the reduced axes with size 1. Default False.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the means.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 5.0]])
        >>> print(paddle.mean(x, axis=1))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.50000000, 4.        ])
""",
    'max': """\
The largest of x's elements over the given axes. Its gradient goes to the largest
elements (split evenly among ties in Paddle 3).

Args:
    x (Tensor): The input tensor.
    axis (int|list|tuple|None, optional): The axes to reduce. None: all of them.
    keepdim (bool, optional): Keep the reduced axes with size 1. Default False.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the maxima.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[1.0, 7.0], [4.0, 2.0]])
        >>> print(paddle.max(x, axis=0))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 7.])
""",
    'min': """\
The smallest of x's elements over the given axes.

Args:
    x (Tensor): The input tensor.
    axis (int|list|tuple|None, optional): The axes to reduce. None: all of them.
    keepdim (bool, optional): Keep the reduced axes with size 1. Default False.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the minima.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.to_tensor([[1.0, 7.0], [4.0, 2.0]])
        >>> print(paddle.min(x))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.)
""",
    'exp': """\
e raised to each element of x.

Args:
    x (Tensor): The input tensor.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: exp(x), of x's shape.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.exp(paddle.to_tensor([0.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 2.71828175])
""",
    'log': """\
The natural logarithm of each element of x (nan below 0, -inf at 0).

Args:
    x (Tensor): The input tensor.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: ln(x).

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.log(paddle.to_tensor([1.0, 2.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.69314718])
""",
    'sqrt': """\
The square root of each element of x (nan below 0).

Args:
    x (Tensor): The input tensor.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: sqrt(x).

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.sqrt(paddle.to_tensor([4.0, 2.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2.        , 1.41421354])
""",
    'pow': """\
x raised to the power y elementwise (y: a Python number or a Tensor broadcast against
x).

Args:
    x (Tensor): The input tensor.
    y (float|int|Tensor): The exponent.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: x ** y.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.pow(paddle.to_tensor([1.0, 2.0, 3.0]), 2))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 4., 9.])
""",
    'abs': """\
The absolute value of each element of x.

Args:
    x (Tensor): The input tensor.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: |x|.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> print(paddle.abs(paddle.to_tensor([-1.5, 0.0, 2.0])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.50000000, 0.        , 2.        ])
""",
    'reshape': """\
x's elements in a new shape (row-major order). One dimension may be -1 (inferred); 0
keeps x's size there.

Args:
    x (Tensor): The input tensor.
    shape (list|tuple|Tensor): The size of each dimension of the result.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the reshaped tensor.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> x = paddle.arange(6)
        >>> print(paddle.reshape(x, [2, -1]))
        Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[0, 1, 2],
                [3, 4, 5]])
""",
    'concat': """\
Tensors joined along an existing axis; their other dimensions must agree.

Args:
    x (list|tuple of Tensor): The tensors to join.
    axis (int|Tensor, optional): The axis to join along. Default 0.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the joined tensor.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> a = paddle.to_tensor([[1, 2]])
        >>> b = paddle.to_tensor([[3, 4]])
        >>> print(paddle.concat([a, b], axis=1))
        Tensor(shape=[1, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[1, 2, 3, 4]])
""",
    'stack': """\
Tensors of one shape stacked along a new axis.

Args:
    x (list|tuple of Tensor): The tensors to stack.
    axis (int, optional): Where the new axis goes. Default 0.
    name (str|None, optional): A name for the operation; used by static graph programs
        only. Default None.

Returns:
    Tensor: the stacked tensor, one dimension more than each input.

Examples:
    .. code-block:: python

        >>> import paddle
        >>> a = paddle.to_tensor([1.0, 2.0])
        >>> b = paddle.to_tensor([3.0, 4.0])
        >>> print(paddle.stack([a, b], axis=1))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 3.],
                [2., 4.]])
""",
}


def apply(namespace):
    """Give each function of ``namespace`` (a dict) named in the table its docstring."""
    for name, doc in DOCSTRINGS.items():
        fn = namespace.get(name)
        if fn is not None and callable(fn):
            try:
                fn.__doc__ = doc
            except (AttributeError, TypeError):  # a builtin or a shared object
                pass
