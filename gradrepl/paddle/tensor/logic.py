"""(to be filled)"""
__all__ = []
__methods__ = []
