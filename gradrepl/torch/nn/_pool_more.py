"""(placeholder)"""
LAYERS: list = []
FUNCTIONAL: dict = {}
TORCH: dict = {}
