"""Which dtype a binary op computes in (Paddle's type promotion), and which dtypes its kernel has.

Every rule here was measured on real Paddle 2.6.2 and 3.3.1 over the full matrix of dtypes (bool,
int8, int16, int32, int64, uint8, float16, float32, float64) x operand kinds (tensor, 0-D tensor,
python bool/int/float), left and right, for ``+ - * / ** // %`` and the comparisons
(``tests/test_promotion.py`` keeps a sample of that matrix as data).

Operands come in three ranks: a *tensor* (at least one dimension), a *0-D tensor* and a *python
scalar*. Dtypes come in four categories: bool < integer < float < complex.

Python scalars (both regimes):

- a python float turns an integer or bool tensor into float32 first (``i * 1.5`` is float32);
- a python int leaves the tensor's dtype alone; in 3.x a bool tensor becomes int64 first
  (``True_tensor + 1`` is int64 2; in 2.x the result stays bool);
- a python bool becomes a tensor of the other operand's dtype (``x + True`` is an elementwise add).

Two tensors, regime ``"strict"`` (3.x, ``profiles.promotion``):

- equal dtypes stay; two floating dtypes give the wider one;
- a 0-D tensor with a tensor behaves like a python scalar of its category: the tensor's dtype
  wins unless the 0-D tensor's category is higher (``int64_tensor * float32_0d`` is float32,
  ``float32_tensor * float64_0d`` stays float32, ``float16_tensor + float32_0d`` is float16);
  floor division is the exception: there the 0-D tensor promotes as a tensor would;
- two 0-D tensors promote by category, then by width (int8 with uint8 gives int16);
- anything else raises ``TypeError`` ("Type promotion only support calculations between
  floating-point numbers ...").

Two tensors, regime ``"left"`` (2.x): the right operand is cast to the left one's dtype (an int64
tensor times a float32 0-D tensor truncates it); only ``+ - *`` widen between two floating dtypes.

True division: integer operands compute in float32 (3.x keeps bool / bool as bool).

Kernels: after promotion Paddle looks the kernel up by dtype; the CPU build lacks some
(``float16`` everywhere, ``int8`` for add in 2.x ...) and raises ``RuntimeError`` "(NotFound)".
``KERNEL_DTYPES`` lists what each kernel has, per regime.
"""
from __future__ import annotations

import numpy as np

from . import glog, profiles

BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3
_CATEGORY = {"b": BOOL, "i": INT, "u": INT, "f": FLOAT, "c": COMPLEX}
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
BOOL_DT = np.dtype(np.bool_)

# the binary ops whose operands two floating tensors widen to the wider float in 2.x
_WIDENING_2X = {"add", "subtract", "multiply"}
# the operators whose operands 2.x promotes when one of them is complex (math_op_patch's list)
_COMPLEX_2X = {"add", "subtract", "multiply", "divide", "matmul"}
# the C++ type names 2.x's complex alignment error prints (measured 2.6.2)
_ALIGN_C_TYPES = {"int64": "int64_t", "bool": "bool", "float16": "::paddle::platform::float16"}
# the ops whose 0-D operand promotes like a tensor of equal standing in 3.x (int8 // int16_0d
# is int16), instead of like a python scalar
_LATTICE_0D = {"floor_divide"}
# the ops whose 0-D operands promote as any tensor in 3.x: floats widen, a float with an integer
# raises TypeError (paddle.maximum(float32_tensor, int64_0d), logical_and likewise; measured 3.3.1)
_TENSOR_0D = {"maximum", "minimum", "logical_and", "logical_or", "logical_xor"}


_BF16 = np.dtype(np.uint16)  # bfloat16's bits (paddle/bf16.py): a floating dtype


def category(dtype) -> int:
    dtype = np.dtype(dtype)
    return FLOAT if dtype == _BF16 else _CATEGORY[dtype.kind]


def strict() -> bool:
    return profiles.current().promotion == "strict"


# ------------------------------------------------------------------------------ python scalars
def is_scalar(v) -> bool:
    """A python (or numpy) number that Paddle's operators take without making a tensor first."""
    return isinstance(v, (bool, int, float, complex, np.bool_, np.integer, np.floating,
                          np.complexfloating))


def is_bool_scalar(v) -> bool:
    return isinstance(v, (bool, np.bool_))


def scalar_kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "b"
    if isinstance(v, (int, np.integer)):
        return "i"
    if isinstance(v, (complex, np.complexfloating)):
        return "c"
    return "f"


def with_scalar(tdtype, kind: str) -> np.dtype:
    """The dtype a tensor is cast to before it meets a python scalar of ``kind`` ('b','i','f').

    A float scalar lifts integer and bool tensors to float32; an int scalar lifts a bool tensor to
    int64 in 3.x only; a bool scalar never changes the tensor (it becomes a tensor of that dtype).
    """
    tdtype = np.dtype(tdtype)
    cat = category(tdtype)
    if kind == "f" and cat < FLOAT:
        return F32
    if kind == "i" and cat == BOOL and strict():
        return I64
    if kind == "c" and cat < COMPLEX:
        return np.dtype(np.complex128 if tdtype == np.float64 else np.complex64)
    return tdtype


# ------------------------------------------------------------------------------ two tensors
def _wider_float(a: np.dtype, b: np.dtype) -> np.dtype:
    if a.itemsize == b.itemsize and a != b:  # float16 with bfloat16: float32 (3.3.1)
        return F32
    return a if a.itemsize >= b.itemsize else b


def _lattice(a: np.dtype, b: np.dtype) -> np.dtype:
    """Promotion of two operands of equal standing: higher category, then numpy's width rules."""
    ca, cb = category(a), category(b)
    if {ca, cb} == {COMPLEX, FLOAT}:  # complex64 with float64 is complex128 (3.3.1), as numpy's
        c, f = (a, b) if ca == COMPLEX else (b, a)
        return np.dtype(np.complex128) if f == np.float64 else c
    if ca != cb:
        return a if ca > cb else b
    if ca == FLOAT:
        return _wider_float(a, b)
    return np.promote_types(a, b)


def _scalar_like(tensor: np.dtype, zero_d: np.dtype) -> np.dtype:
    """A 0-D tensor meeting a tensor: it only matters if its category is higher."""
    return zero_d if category(zero_d) > category(tensor) else tensor


def promotion_error(xd, yd) -> TypeError:
    return TypeError(
        "(InvalidType) Type promotion only support calculations between floating-point numbers "
        "and between complex and real numbers. But got different data type x: "
        f"{dtype_name(xd)}, y: {dtype_name(yd)}. (at /paddle/paddle/phi/common/"
        "type_promotion.h:220)\n")


def common_dtype(op: str, xd, yd, x0d: bool, y0d: bool) -> tuple[np.dtype, np.dtype]:
    """The dtypes the two tensor operands of ``op`` are cast to (equal, except in 2.x casts)."""
    xd, yd = np.dtype(xd), np.dtype(yd)
    if xd == yd:
        return xd, yd
    both_float = category(xd) == FLOAT and category(yd) == FLOAT
    if not strict():
        if COMPLEX in (category(xd), category(yd)) and op in _COMPLEX_2X:
            other = yd if category(xd) == COMPLEX else xd
            if category(other) != COMPLEX and other not in (F32, np.dtype(np.float64)):
                # 2.x's math_op_patch aligns only float32/float64 with complex (real 2.6.2)
                raise RuntimeError(
                    "(Unavailable) Only supports to align data type include float32, float64, "
                    "complex64 and complex128, but received data type is `s`."
                    f"{_ALIGN_C_TYPES.get(other.name, other.name)} (at /paddle/paddle/fluid/"
                    "framework/data_type.cc:128)\n")
            w = np.promote_types(xd, yd)  # 2.x promotes when a complex operand is involved
            return w, w
        if both_float and op in _WIDENING_2X:
            w = _wider_float(xd, yd)
            glog.promoted(op)
            return w, w
        return xd, xd
    if op in _TENSOR_0D:
        x0d = y0d = False
    if (x0d and y0d) or ((x0d or y0d) and op in _LATTICE_0D):
        w = _lattice(xd, yd)
    elif y0d:
        w = _scalar_like(xd, yd)
    elif x0d:
        w = _scalar_like(yd, xd)
    elif category(xd) == COMPLEX or category(yd) == COMPLEX or both_float:
        w = _lattice(xd, yd)
    else:
        raise promotion_error(xd, yd)
    glog.promoted(op)
    return w, w


def function_dtypes(op: str, xd, yd) -> tuple[np.dtype, np.dtype]:
    """``paddle.add(x, y)`` and friends: 3.x promotes as the operators do; 2.x's functions only
    widen floats for ``add/subtract/multiply`` and otherwise hand both dtypes to the kernel."""
    xd, yd = np.dtype(xd), np.dtype(yd)
    if strict() or xd == yd:
        return xd, yd
    if category(xd) == FLOAT and category(yd) == FLOAT and op in _WIDENING_2X:
        w = _wider_float(xd, yd)
        glog.promoted(op)
        return w, w
    return xd, yd


def mismatch_error(op: str, xd, yd) -> Exception:
    """What a 2.x kernel says when it is handed two different dtypes (it reads the second one)."""
    check_kernel(op, yd)
    return ValueError(
        f"(InvalidArgument) The type of data we are trying to retrieve ({np.dtype(yd).name}) "
        f"does not match the type of data ({np.dtype(xd).name}) currently contained in the "
        "container.")


def true_divide_dtype(dtype) -> np.dtype:
    """True division computes integers in float32; 3.x keeps bool / bool as bool."""
    dtype = np.dtype(dtype)
    cat = category(dtype)
    if cat == INT or (cat == BOOL and not strict()):
        return F32
    return dtype


# ------------------------------------------------------------------------------ kernels
_ALL = {"bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
        "complex64", "complex128"}
_NUMERIC32_64 = {"int32", "int64", "float32", "float64", "complex64", "complex128"}

# which dtypes the CPU kernel of each op has: {kernel: (2.x set, 3.x set)}
KERNEL_DTYPES = {
    "add": ({"int16", "int32", "int64", "float32", "float64", "complex64", "complex128"},
            {"bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64",
             "complex64", "complex128"}),
    "subtract": ({"int16"} | _NUMERIC32_64,) * 2,
    "multiply": ({"bool"} | _NUMERIC32_64,) * 2,
    "divide": (_ALL - {"float16"},) * 2,
    "elementwise_pow": ({"int32", "int64", "float32", "float64"}, _NUMERIC32_64),
    "pow": ({"int32", "int64", "float32", "float64"}, _NUMERIC32_64),
    "floor_divide": ({"int8", "int16", "int32", "int64", "uint8", "float16", "float32",
                      "float64"},) * 2,
    "remainder": ({"int32", "int64", "float32", "float64"}, _NUMERIC32_64),
    "maximum": ({"int32", "int64", "float32", "float64"},) * 2,
    "minimum": ({"int32", "int64", "float32", "float64"},) * 2,
    "fmax": ({"int32", "int64", "float32", "float64"},) * 2,
    "fmin": ({"int32", "int64", "float32", "float64"},) * 2,
    "scale": (_ALL,) * 2,  # complex too in 2.6.2 (0.5 * complex64 tensor, paddle.scale)
    "div_scale": (_ALL,) * 2,
}


def _kernel_set(kernel):
    sets = KERNEL_DTYPES.get(kernel)
    if sets is None:
        return None
    return sets[1 if profiles.current().kernel_set == "3" else 0]


_NAMES: dict = {}


def dtype_name(dtype) -> str:
    """``np.dtype(dtype).name``, remembered (numpy computes the name in Python, ~3 us)."""
    name = _NAMES.get(dtype)
    if name is None:
        name = np.dtype(dtype).name
        name = _NAMES[dtype] = "bfloat16" if name == "uint16" else name
    return name


def kernel_has(kernel: str, dtype) -> bool:
    have = _kernel_set(kernel)
    return have is None or dtype_name(dtype) in have


def check_kernel(kernel: str, dtype) -> None:
    """Raise Paddle's NotFound error when the kernel has no CPU implementation for ``dtype``."""
    if kernel_has(kernel, dtype):
        return
    if np.dtype(dtype) == _BF16:
        from . import bf16

        return bf16.check_kernel(kernel)
    name = np.dtype(dtype).name
    have = _listed(kernel, _kernel_set(kernel), name)
    raise RuntimeError(
        f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel `{kernel}` "
        f"is not registered. Selected wrong DataType `{name}`. Paddle support following "
        f"DataTypes: {have}." + kernel_hint())


# kernel -> (2.x, 3.x): the list real Paddle prints for a float16 tensor pair on CPU (measured
# 2.6.2 and 3.3.1; it names bfloat16, which the sets above leave to bf16.py)
FLOAT16_LISTED = {
    "subtract": ("int64, int16, float64, complex128, float32, complex64, int32, bfloat16",) * 2,
    "multiply": ("int64, float64, complex128, float32, complex64, int32, bfloat16, bool",) * 2,
    "maximum": ("int64, float64, float32, int32, bfloat16",) * 2,
    "minimum": ("int64, float64, float32, int32, bfloat16",) * 2,
    "elementwise_pow": ("int64, float64, float32, int32, bfloat16",
                        "int64, float64, complex128, float32, complex64, int32, bfloat16"),
}


def _listed(kernel, names, dtype_name=""):
    """The dtypes as Paddle lists them (its kernel map's order): measured for float16
    (``FLOAT16_LISTED``); the order recorded for the bfloat16 error where that list holds the
    same dtypes (e.g. 3.3.1's float16 add: "int16, float64, complex128, ..."); else sorted."""
    from . import bf16

    measured = FLOAT16_LISTED.get(kernel) if dtype_name == "float16" else None
    if measured:
        return measured[bf16._version()]
    row = bf16.MISSING.get(kernel)
    listed = row[bf16._version()] if row else None
    if listed and set(listed.rstrip(".").split(", ")) == set(names):
        return listed.rstrip(".")
    return ", ".join(sorted(names))


# the line Paddle's kernel factory adds after "Paddle support following DataTypes: ..." when no
# kernel is registered for a dtype (SelectKernelOrThrowError; measured 3.3.1 and 2.6.2: softmax,
# log_softmax, sigmoid, label_smooth, add of int8); 2.2 unmeasured: none
_KERNEL_HINT_LINE = {"3": 317, "2.6": 262}
_KERNEL_HINT_EXPR = "kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU"


def kernel_hint() -> str:
    """The ``[Hint: ...] (at .../kernel_factory.cc:N)`` tail of a dtype NotFound error."""
    line = _KERNEL_HINT_LINE.get(profiles.current().key)
    if line is None:
        return ""
    return (f"\n  [Hint: Expected {_KERNEL_HINT_EXPR} != true, but received {_KERNEL_HINT_EXPR}:1 "
            f"== true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:{line})\n")


# ------------------------------------------------------------------------------ compatibility
def binary(xd, yd, x0d: bool, y0d: bool, opname: str) -> np.dtype:
    """The single dtype a binary op computes in (other modules' entry point: matmul, where, ...):
    two floats give the wider one; otherwise the rules of ``common_dtype``."""
    xd, yd = np.dtype(xd), np.dtype(yd)
    if category(xd) == FLOAT and category(yd) == FLOAT:
        return _wider_float(xd, yd)
    return common_dtype(opname, xd, yd, x0d, y0d)[0]
