"""Recorded bits of arrays from a real framework: one line per array (``case label dtype shape
md5``). The record scripts beside it (run with the real framework) ``write`` the table; the tests
``read`` it and ``check`` gradrepl's arrays against it. numpy and the standard library only."""
import hashlib
import importlib.util
import os


def shape_text(shape) -> str:
    return "x".join(map(str, shape)) or "()"


def write(results: dict, path: str, header: str) -> int:
    """``results``: case -> {label: array}; returns the number of arrays written."""
    lines = [f"# {header}: case label dtype shape md5"]
    for name, outs in results.items():
        for label, v in outs.items():
            lines.append(f"{name} {label} {v.dtype} {shape_text(v.shape)} "
                         f"{hashlib.md5(v.tobytes()).hexdigest()}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines) - 1


def read(path: str) -> dict:
    """case -> {label: (dtype, shape, md5)}."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, label, dtype, shape, md5 = line.split()
            out.setdefault(name, {})[label] = (dtype, shape, md5)
    return out


def check(expected: dict, name: str, got: dict) -> None:
    """Assert that ``got`` (label -> array) has the recorded dtypes, shapes and bytes."""
    want = expected[name]
    assert sorted(got) == sorted(want)
    bad = []
    for label, arr in got.items():
        dtype, shape, md5 = want[label]
        assert str(arr.dtype) == dtype, (label, arr.dtype)
        assert shape_text(arr.shape) == shape, (label, arr.shape)
        if hashlib.md5(arr.tobytes()).hexdigest() != md5:
            bad.append(label)
    assert not bad, f"{name}: bytes differ from real torch in {bad}"


def load_module(path: str, name: str):
    """A cases file loaded as a module (the same file the record script imports)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_table(folder: str, name: str):
    """(the cases module ``folder/cases.py``, the recorded table ``folder/expected.txt``): what a
    bit test reads."""
    return (load_module(os.path.join(folder, "cases.py"), name),
            read(os.path.join(folder, "expected.txt")))
