"""``pretrained=True``: gradrepl downloads nothing, so it says so (Paddle's own assertion for
architectures without published weights)."""
from __future__ import annotations


def refuse_pretrained(arch, published):
    if arch not in published:
        raise AssertionError(f"{arch} model do not have a pretrained model now, you should set "
                             f"pretrained=False")
    raise RuntimeError(
        f"gradrepl does not download pretrained weights ({arch}, pretrained=True): build the "
        f"model with pretrained=False, or load weights you have with "
        f"model.set_state_dict(...)")
