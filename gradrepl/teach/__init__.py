"""Teaching tools on top of the engine and ``why``: exercises that check a student's own
gradient (``quiz``) and finite differences beside autograd (``numeric``)."""
