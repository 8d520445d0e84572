"""Warnings that real Paddle raises inside its own modules, shown where Paddle shows them.

Python prints a warning as ``FILE:LINE: Category: message`` and then the source line. For a
warning raised inside Paddle's library (BatchNorm's "When training, we now always track global
mean and variance.", ``to_tensor`` of a tensor, ``set_state_dict``'s "Skip loading ...") that is
Paddle's file in site-packages, its line and its source text, measured per version (``SITES``).
gradrepl names the same place: the installed ``paddle`` package's folder where one is found on
``sys.path`` (looked up by path, never imported: gradrepl's import hook is not consulted), else
where pip would install it for this interpreter (``sysconfig``'s purelib). The source line is
registered in ``linecache`` so it prints whether or not that file exists. A version with no
measured site (2.2) warns from gradrepl's own line, as before. Once-per-location rules follow
Python's: each Paddle module has its own warning registry.
"""
from __future__ import annotations

import warnings

from .. import _libsite
from . import profiles

_JIT_NAME_NONE_SOURCE = "                warnings.warn(name_none_error % spec)"
# key -> profile key -> (file under the paddle package, line, source line as Paddle's file has it)
SITES = {
    "bn_global_stats": {"3": ("nn/layer/norm.py", 885, "            warnings.warn("),
                        "2.6": ("nn/layer/norm.py", 824, "            warnings.warn(")},
    # paddle.sparse.nn.BatchNorm's own forward (its values' batch norm does not warn again)
    "sparse_bn_global_stats": {"3": ("sparse/nn/layer/norm.py", 141, "            warnings.warn("),
                               "2.6": ("sparse/nn/layer/norm.py", 130,
                                       "            warnings.warn(")},
    "to_tensor_copy": {"3": ("tensor/creation.py", 1152, "    return tensor(")},
    "skip_loading": {
        "3": ("nn/layer/layers.py", 2706,
              '                warnings.warn(f"Skip loading for {key}. " + str(err))'),
        "2.6": ("nn/layer/layers.py", 2084,
                '                warnings.warn(f"Skip loading for {key}. " + str(err))')},
    "jit_name_none": {"3": ("jit/api.py", 552, _JIT_NAME_NONE_SOURCE),
                      "2.6": ("jit/api.py", 606, _JIT_NAME_NONE_SOURCE)},
    "jit_name_no_exists": {
        "3": ("jit/api.py", 554, "                warnings.warn(name_no_exists_error % spec.name)"),
        "2.6": ("jit/api.py", 608, "                warnings.warn(name_no_exists_error % spec.name)")},
    "jit_spec_ignored": {"3": ("jit/dy2static/program_translator.py", 755, "            warnings.warn("),
                         "2.6": ("jit/dy2static/program_translator.py", 712,
                                 "            warnings.warn(")},
    # a static-mode optimizer.minimize reads the loss Value's place (3.x: PIR Values have none)
    "pir_place": {"3": ("pir/math_op_patch.py", 241, "        warnings.warn(")},
    # paddle.amp on a CPU (gradrepl/paddle/amp): the guard and the scaler make no effect
    "amp_guard_cpu": {"3": ("amp/auto_cast.py", 599, "            warnings.warn("),
                      "2.6": ("amp/auto_cast.py", 359, "        warnings.warn(")},
    # 3.x's import looks for ccache (paddle/import_notes.py); 2.6 has no such check
    "no_ccache": {"3": ("utils/cpp_extension/extension_utils.py", 712,
                        "        warnings.warn(warning_message)")},
    # nn.RNN/BiRNN of a cell with sequence_length (_rnn_dynamic_graph): 3.x's deprecated mask
    "rnn_sequence_mask": {"3": ("nn/layer/rnn.py", 198,
                                "        mask = paddle.static.nn.sequence_lod.sequence_mask(")},
    "amp_scaler_cpu": {"3": ("amp/grad_scaler.py", 133, "                warnings.warn("),
                       "2.6": ("amp/grad_scaler.py", 112, "            warnings.warn(")},
}
_registries = _libsite._registries  # (one per library file, shared with torch.libwarn)


def paddle_dir() -> str:
    """The folder real Paddle's modules live in (or would, installed for this interpreter)."""
    return _libsite.package_dir("paddle")


def warn(key: str, message: str, category=UserWarning, stacklevel: int = 2) -> None:
    """Warn ``message`` from Paddle's own site for ``key`` under the current version (see
    ``SITES``), or from the caller's caller where that version's site is not measured."""
    site = SITES.get(key, {}).get(profiles.current().key)
    if site is None:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
        return
    rel, line, source = site
    _libsite.warn_at("paddle", rel, line, source, message, category)
