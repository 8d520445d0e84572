"""copy.copy and pickle of a Tensor per version: Paddle 2.6.2 raises TypeError (its Tensor has no
reduce, so matplotlib's ``copy.copy(y)`` fails when a chapter plots a tensor), 3.3.1 copies;
copy.deepcopy works in both. Expected lines recorded from real Paddle 2.6.2 and 3.3.1."""
import copy
import pickle

import pytest

from gradrepl.paddle import profiles

SCRIPT_LINES = {
    "2.6": ["copy TypeError cannot pickle 'Tensor' object", "deepcopy Tensor True False",
            "copy TypeError cannot pickle 'EagerParamBase' object", "deepcopy EagerParamBase",
            "pickle TypeError cannot pickle 'Tensor' object"],
    "3": ["copy Tensor True False", "deepcopy Tensor True False", "copy ok",
          "deepcopy EagerParamBase", "pickle ok"],
}


def _run(paddle):
    lines = []
    t = paddle.to_tensor([1., 2.])
    for f in (copy.copy, copy.deepcopy):
        try:
            r = f(t)
            lines.append(f"{f.__name__} {type(r).__name__} {r.stop_gradient} {r is t}")
        except TypeError as e:
            lines.append(f"{f.__name__} TypeError {e}")
    p = paddle.create_parameter([2], "float32")
    try:
        copy.copy(p)
        lines.append("copy ok")
    except TypeError as e:
        lines.append(f"copy TypeError {e}")
    lines.append(f"deepcopy {type(copy.deepcopy(p)).__name__}")
    try:
        back = pickle.loads(pickle.dumps(t))
        assert back.numpy().tolist() == [1.0, 2.0]
        lines.append("pickle ok")
    except TypeError as e:
        lines.append(f"pickle TypeError {e}")
    return lines


@pytest.mark.parametrize("version", ["2.6", "3"])
def test_copy_and_pickle_follow_the_version(version):
    import gradrepl.paddle as paddle

    old = profiles.current()
    profiles.set_profile(version)
    try:
        assert _run(paddle) == SCRIPT_LINES[version]
    finally:
        profiles.set_profile(old)


def test_deepcopy_is_independent_of_the_original():
    import gradrepl.paddle as paddle

    old = profiles.current()
    profiles.set_profile("2.6")
    try:
        t = paddle.to_tensor([1., 2.], stop_gradient=False)
        d = copy.deepcopy(t)
        d.data[0] = 5.0
        assert t.numpy().tolist() == [1.0, 2.0] and d.stop_gradient is False
    finally:
        profiles.set_profile(old)
