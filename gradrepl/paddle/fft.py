"""``import paddle.fft``: the discrete Fourier transforms are not emulated by gradrepl; importing
them says so (``paddle.fft`` as an attribute raises the same message as an AttributeError)."""
raise ModuleNotFoundError("No module named 'paddle.fft' (gradrepl's paddle does not emulate "
                          "paddle.fft: the discrete Fourier transforms)", name="paddle.fft")
