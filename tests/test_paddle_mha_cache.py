"""Paddle MultiHeadAttention's caches and incremental decoding (LEFT17; PM16C's e19 lecture:
``gen_cache`` raised a bare AttributeError). ``MultiHeadAttention.Cache``/``StaticCache``
(namedtuples of k, v), ``gen_cache`` (empty Cache, Cache of given k/v, StaticCache of the
memory), ``compute_kv``, ``forward`` with a cache (the grown Cache is returned last), the
encoder and decoder layers' and stacks' ``gen_cache`` (``do_zip``) and ``cache=`` paths: step-by-
step decoding equals real Paddle's to the last bit. EXPECTED_3 / EXPECTED_26: real Paddle
3.3.1 / 2.6.2's output here (3.3.1's ccache notice left out). Also: a Layer name real Paddle has
and gradrepl lacks raises the not-emulated AttributeError (``nn/layer/_layer_names.py``)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import skip_unless_mkl_path

SCRIPT = """\
import numpy as np
import paddle
import paddle.nn as nn

paddle.seed(5)
rng = np.random.RandomState(5)
B, T, S, D, H = 2, 4, 3, 8, 2
x = paddle.to_tensor(rng.randn(B, T, D).astype('float32'))
mem = paddle.to_tensor(rng.randn(B, S, D).astype('float32'))
mha = nn.MultiHeadAttention(D, H, need_weights=True)
c = mha.gen_cache(x)
print(type(c).__name__, c.k.shape, c.v.shape, c.k.dtype)
print(type(mha.gen_cache(x, x)).__name__, mha.gen_cache(x, x).k.shape)
sc = mha.gen_cache(mem, mem, type=nn.MultiHeadAttention.StaticCache)
print(type(sc).__name__, sc.k.shape, isinstance(sc, tuple), sc._fields)
k, v = mha.compute_kv(mem, mem)
print(k.shape, bool(paddle.equal_all(k, sc.k)))
o, w, c2 = mha(x[:, :1], None, None, None, c)
print(o.shape, w.shape, c2.k.shape)
o, w, sc2 = mha(x, None, None, None, sc)
print(sc2 is sc, o[1, 2].numpy().tolist())
dec_layer = nn.TransformerDecoderLayer(D, H, 16, dropout=0.0)
dec = nn.TransformerDecoder(dec_layer, 2, norm=nn.LayerNorm(D))
dec.eval()
caches = dec.gen_cache(mem)
print(len(caches), [type(p).__name__ for p in caches[0]], caches[0][0].k.shape, caches[0][1].k.shape)
z = dec.gen_cache(mem, do_zip=True)
print(len(z), len(z[0]), type(z[0][0]).__name__)
outs = []
for t in range(T):
    o, caches = dec(x[:, t:t + 1], mem, None, None, caches)
    outs.append(o)
inc = paddle.concat(outs, axis=1)
mask = paddle.triu(paddle.full([T, T], float('-inf')), 1)
full = dec(x, mem, tgt_mask=mask)
print(inc[0, -1].numpy().tolist())
print(full[0, -1].numpy().tolist())
print(caches[1][0].k.shape, float((inc - full).abs().max()))
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, 16, dropout=0.0, normalize_before=True), 2)
enc.eval()
ec = enc.gen_cache(x)
print(len(ec), type(ec[0]).__name__, ec[0].k.shape)
eo, ec = enc(x[:, :2], None, ec)
eo, ec = enc(x[:, 2:], None, ec)
print(eo[1, 0].numpy().tolist(), ec[1].k.shape)
print(repr(nn.MultiHeadAttention.Cache), nn.MultiHeadAttention.StaticCache.__module__)
"""

EXPECTED_3 = """\
Cache paddle.Size([2, 2, 0, 4]) paddle.Size([2, 2, 0, 4]) paddle.float32
Cache paddle.Size([2, 4, 8])
StaticCache paddle.Size([2, 2, 3, 4]) True ('k', 'v')
paddle.Size([2, 2, 3, 4]) True
paddle.Size([2, 1, 8]) paddle.Size([2, 2, 1, 1]) paddle.Size([2, 2, 1, 4])
True [0.6280831694602966, 1.181753158569336, -0.3215222656726837, 0.6609307527542114, -0.02983117289841175, 0.6917978525161743, -0.0724448561668396, -0.8446518778800964]
2 ['Cache', 'StaticCache'] paddle.Size([2, 2, 0, 4]) paddle.Size([2, 2, 3, 4])
2 2 Cache
[-1.1340924501419067, 0.9542291164398193, 0.17833960056304932, -1.5393048524856567, -0.9625340104103088, 0.3371873199939728, 0.9947322607040405, 1.171442985534668]
[-1.1340925693511963, 0.9542291164398193, 0.17833952605724335, -1.5393047332763672, -0.9625335931777954, 0.33718717098236084, 0.9947322607040405, 1.1714427471160889]
paddle.Size([2, 2, 4, 4]) 4.76837158203125e-07
2 Cache paddle.Size([2, 2, 0, 4])
[-2.0570335388183594, 0.2559512257575989, 3.152769088745117, -1.539605736732483, -2.5917277336120605, 0.7337571978569031, 0.44167181849479675, 2.561526298522949] paddle.Size([2, 2, 4, 4])
<class 'paddle.nn.layer.transformer.Cache'> paddle.nn.layer.transformer
"""

EXPECTED_26 = """\
Cache [2, 2, 0, 4] [2, 2, 0, 4] paddle.float32
Cache [2, 4, 8]
StaticCache [2, 2, 3, 4] True ('k', 'v')
[2, 2, 3, 4] True
[2, 1, 8] [2, 2, 1, 1] [2, 2, 1, 4]
True [0.6280831694602966, 1.181753158569336, -0.3215222656726837, 0.6609307527542114, -0.02983117289841175, 0.6917978525161743, -0.0724448561668396, -0.8446518778800964]
2 ['Cache', 'StaticCache'] [2, 2, 0, 4] [2, 2, 3, 4]
2 2 Cache
[-1.1340924501419067, 0.9542291164398193, 0.17833960056304932, -1.5393048524856567, -0.9625340104103088, 0.3371873199939728, 0.9947322607040405, 1.171442985534668]
[-1.1340925693511963, 0.9542291164398193, 0.17833952605724335, -1.5393047332763672, -0.9625335931777954, 0.33718717098236084, 0.9947322607040405, 1.1714427471160889]
[2, 2, 4, 4] 4.76837158203125e-07
2 Cache [2, 2, 0, 4]
[-2.0570335388183594, 0.2559512257575989, 3.152769088745117, -1.539605736732483, -2.5917277336120605, 0.7337571978569031, 0.44167181849479675, 2.561526298522949] [2, 2, 4, 4]
<class 'paddle.nn.layer.transformer.Cache'> paddle.nn.layer.transformer
"""


@pytest.mark.parametrize("version, expected", [("3", EXPECTED_3), ("2.6", EXPECTED_26)])
def test_multihead_attention_caches_as_paddle(tmp_path, version, expected):
    path = tmp_path / "mha_cache.py"
    path.write_text(SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version,
                           str(path)], capture_output=True, text=True, timeout=300,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    # the caches' types, shapes and fields hold on any CPU; the values' last bits follow MKL's
    # products (recorded where MKL takes its AVX512_E1 path)
    assert _FLOAT.sub("F", proc.stdout) == _FLOAT.sub("F", expected)
    skip_unless_mkl_path("Paddle MultiHeadAttention decoding values")
    assert proc.stdout == expected


_FLOAT = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_layer_names_paddle_has_say_not_emulated(version):
    """GRU.flatten_parameters is a method of real Paddle's GRU (3.3.1 and 2.6.2: dir()) that
    gradrepl does not emulate; a name neither has stays Python's plain message."""
    from gradrepl.paddle import profiles

    profiles.set_profile(version)
    import gradrepl.paddle as paddle

    gru = paddle.nn.GRU(2, 2)
    with pytest.raises(AttributeError, match=r"^'GRU' object has no attribute "
                       r"'flatten_parameters' \(gradrepl's paddle does not emulate "
                       r"paddle.nn.GRU.flatten_parameters\)$"):
        gru.flatten_parameters()
    with pytest.raises(AttributeError, match=r"^'GRU' object has no attribute 'nothing'$"):
        gru.nothing  # noqa: B018
    assert not hasattr(gru, "flatten_parameters")
