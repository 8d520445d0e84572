"""placeholder"""
__all__: list = []
FUNCTIONAL: dict = {}
