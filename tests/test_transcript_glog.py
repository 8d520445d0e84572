"""A transcript check does not compare glog records (Paddle's C++ log lines on stderr, with a
time stamp and a thread id): a session recorded from real Paddle 3.3.1 holds
``W.... backward.cc:685] While running Node (...) raises an EnforceNotMet exception`` before the
error, one recorded before gradrepl printed them does not; both must check, and nothing else is
loosened."""
from gradrepl.repl import transcript as T

ERR = ["Traceback (most recent call last):", '  File "<stdin>", line 1, in <module>',
       "SystemError: (Fatal) boom"]
LOG = ("W1206 17:39:14.664452  1878 backward.cc:685] While running Node (MultiplyGradNode) "
       "raises an EnforceNotMet exception")


def test_glog_records_are_not_compared_on_either_side():
    with_log = "\n".join([LOG] + ERR) + "\n"
    without = "\n".join(ERR) + "\n"
    assert T.matches(ERR, with_log)                                   # old transcript, new output
    assert T.matches([LOG.replace("17:39:14.664452  1878", "09:00:00.000001 42")] + ERR, without)
    assert not T.matches(ERR[:2] + ["SystemError: (Fatal) other"], with_log)
    assert not T.matches(["W1206 no time stamp here"] + ERR, without)  # not a glog record


def test_project_session_with_a_logged_error_checks():
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "gradrepl", "replay", "--check",
                        str(root / "sessions" / "lesson_profile3.pycon")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "ok, 20 blocks" in r.stdout
