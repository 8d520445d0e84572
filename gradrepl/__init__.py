"""gradrepl: an educational autograd workbench that speaks Paddle.

``import gradrepl.paddle as paddle`` gives the Paddle API without touching ``sys.modules``.
"""
__version__ = "0.1.0"
