"""Session files (transcripts): what the shell showed, kept as a file that can be run again.

A session file is a doctest-like transcript (``sessions/*.pycon``); on the right, what each
line is (not part of the file)::

    # gradrepl: paddle=3                     the profile to replay under (optional header)
    # Broadcasting, step one.                a comment: kept; prose in a handout
    >>> import paddle                        an input with no output
    >>> for k in range(2):                   a block ...
    ...     print(k)
    ...                                      ... its closing line (may be left out)
    0                                        the expected output, as the shell shows it
    1
                                             a blank line: the output ends (a comment follows)
    # A freed graph.
    >>> y.backward()
    Traceback (most recent call last):       a traceback: the frame lines under it are
      File "/site-packages/paddle/x.py", ...   not compared, the exception line is
    RuntimeError: (Unavailable) eager_tmp_0 trying to backward through the same graph ...
    ...                                      a wildcard line: any lines, zero or more

The rules, in full:

- **Inputs.** A line ``>>> X`` starts an input; the ``... X`` lines after it continue it while
  the input is incomplete, by Python's console rules (``code.InteractiveConsole``) or by the
  gradrepl shell's (which also asks for the closing empty line after an indented line). An empty
  ``...`` line there is the block's closing line. ``% `` commands (``>>> %graph e``) are inputs
  and never continue. A ``... X`` line (with text) right after a complete input is an error, as
  is ``>>>X`` without its space.
- **Expected output.** The lines after an input, exactly as the shell shows them. They end at
  the next ``>>> `` line, or at a blank line that is followed (after any more blank lines) by a
  ``#`` comment line, a ``>>> `` line or the end of the file: so a blank line inside an output
  is output, and ``<BLANKLINE>`` (doctest's spelling) is needed only for an empty output line
  that would otherwise end it (a trailing one, or one before a line starting with ``#``). The
  writer (``--update``, ``%record``) writes ``<BLANKLINE>`` only there; the reader accepts it
  anywhere. When comparing, the blank lines that ended an output may also stand for the
  output's own trailing empty lines (as a console transcript shows them, without
  ``<BLANKLINE>``): both readings match.
- **Comments.** ``#`` lines at the start of the file or after the blank line that ends an
  output are comments: kept verbatim by ``--update``, shown as prose in ``--html`` handouts. A
  ``#`` line straight after an input or an output line (no blank line) is *expected output*
  (a program may print it); ``--check`` says so in its diff, and ``--update`` refuses to drop
  such lines. Other text between blocks is an error.
- **Header.** A first line ``# gradrepl: paddle=3`` picks the profile (it is a comment too).
- **Matching.** Lines compare exactly, except trailing spaces and tabs at line ends. An
  expected line ``...`` matches any lines, zero or more (a wildcard line; to put one right
  after a doctest-style block, write the block's closing ``... `` line first, else the
  wildcard closes the block). An expected ``Traceback (most recent call last):`` line followed
  by indented frame lines and then the exception line(s) matches the actual traceback whatever
  its frames, as doctest does: so a transcript recorded from real Paddle in a plain Python
  console is a valid expected output. For the same reason the input's pseudo-file in a
  traceback line (``File "<stdin>"``, ``"<console>"``, ``"<python-input-0>"``) compares equal,
  and a SyntaxError report (``  File "<stdin>", line 1``, the source line, a caret line the
  console leaves out, then ``SyntaxError: ...``) compares its first and last lines only.
- **Not representable**: an output line starting with ``>>> `` (it would start an input);
  ``--update`` refuses to write one (the file stays as it was).

The parse keeps every line of the file, so ``--update`` rewrites only the outputs that differ
and leaves comments, the header, blank lines, block-ending style and matching wildcards as they
were.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from .complete import needs_more

HEADER = re.compile(r"^#\s*gradrepl:\s*paddle\s*=\s*([\w.]+)")
BLANKLINE = "<BLANKLINE>"
WILDCARD = "..."
_TRACEBACK = re.compile(r"^Traceback \((most recent call|innermost) last\):$")
# the input's file name in tracebacks: python (<stdin>), code.InteractiveConsole (<console>),
# Python 3.13's REPL (<python-input-N>)
_PSEUDO_FILE = re.compile(r'^(\s*File ")<(?:stdin|console|python-input-\d+)>(")')
# the first line of a SyntaxError report (no traceback header): the lines under it (the source
# line, the caret, which code.InteractiveConsole leaves out) are not compared
_SYNTAX_AT = re.compile(r'^  File "<stdin>", line \d+$')
# a SyntaxError's last line that code.InteractiveConsole words unlike python's own REPL: codeop
# of Python 3.11.2 (Debian 12's) reports an unfinished line (``y = 1 +``) as "incomplete input",
# where the REPL of the same Python (and gradrepl's shell) says "invalid syntax"
_CONSOLE_SYNTAX = {"SyntaxError: incomplete input": "SyntaxError: invalid syntax"}
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


class TranscriptError(ValueError):
    """A file that is not a transcript, with the line that is wrong (1-based; None if the
    whole file)."""

    def __init__(self, message: str, line: int | None = None, path: str | None = None):
        self.message = message
        self.line = line
        self.path = path
        where = path or "<transcript>"
        if line is not None:
            where += f":{line}"
        if message == "no such file" and path is not None:   # every command's wording
            super().__init__(f"{message}: {path}")
        else:
            super().__init__(f"{where}: {message}")


@dataclass
class Block:
    """One input and its expected output. Line numbers are 1-based file lines; the spans are
    0-based indices into ``Transcript.lines`` (``out_start:out_end`` is the expected output)."""

    source: str                  # the input, prompts removed, lines joined with "\n"
    line: int                    # the ``>>> `` line
    input_lines: list            # the input lines as in the file (prompts included)
    out_start: int               # index of the first expected-output line
    out_end: int                 # index after the last one
    expected: list               # the expected lines (``<BLANKLINE>`` read as "")
    comments: list = field(default_factory=list)   # the "#" lines before this block
    blank_after: int = 0         # blank lines after the output (before a comment or input)

    def matches(self, output: str) -> bool:
        """Whether ``output`` is what this block expects. The blank lines that end the expected
        output in the file may also be the output's own trailing empty lines (a console
        transcript of ``print("c\\n")`` has its empty line right before the next prompt)."""
        if matches(self.expected, output):
            return True
        lines = output_lines(output)
        for k in range(1, min(self.blank_after, len(lines)) + 1):
            if _blank(lines[-k]) and matches(self.expected, "\n".join(lines[:-k]) + "\n"):
                return True
            if not _blank(lines[-k]):
                break
        return False

    @property
    def output_line(self) -> int:
        return self.out_start + 1

    @property
    def expected_text(self) -> str:
        return "".join(ln + "\n" for ln in self.expected)


@dataclass
class Transcript:
    path: str
    lines: list                  # every line of the file, without newlines
    profile: str | None          # from the header line, if any
    blocks: list
    trailing_comments: list = field(default_factory=list)  # "#" lines after the last block


# ---------------------------------------------------------------------------- reading
def _is_prompt(line: str) -> bool:
    return line.startswith(">>> ") or line.rstrip() == ">>>"


def _is_cont(line: str) -> bool:
    return line.startswith("... ") or line.rstrip() == "..."


def _content(line: str) -> str:
    return line[4:] if len(line) > 3 and line[3] == " " else ""


def _blank(line: str) -> bool:
    return not line.strip()


def parse(text: str, path: str = "<transcript>") -> Transcript:
    """Read a session file; a ``TranscriptError`` names the line that is wrong."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n = len(lines)
    profile = None
    if n and HEADER.match(lines[0]):
        profile = HEADER.match(lines[0]).group(1)
    blocks: list[Block] = []
    comments: list[str] = []
    i = 0

    def err(msg, idx):
        raise TranscriptError(msg, idx + 1, path)

    # the prelude and the gaps between blocks: blank lines and "#" comments only
    def gap(i):
        while i < n and not _is_prompt(lines[i]):
            ln = lines[i]
            if ln.startswith(">>>"):
                err("'>>>' must be followed by a space", i)
            if ln.lstrip().startswith("#"):
                comments.append(ln)
            elif not _blank(ln):
                if _is_cont(ln):
                    err("a '... ' line outside an input (an input starts with '>>> ')", i)
                what = "before the first '>>> ' input" if not blocks else "between blocks"
                err(f"text {what}: comments start with '#', inputs with '>>> ' "
                    "(an expected output follows its input directly)", i)
            i += 1
        return i

    i = gap(0)
    while i < n:
        start = i
        src = [_content(lines[i])]
        i += 1
        j = i
        while j < n and _is_cont(lines[j]):
            j += 1
        taken = _continuation(src, [_content(ln) for ln in lines[i:j]])
        src += [_content(ln) for ln in lines[i:i + taken]]
        i += taken
        if i < n and _is_cont(lines[i]) and not _blank(_content(lines[i])):
            err("a '... ' line after a complete input (a new statement starts with '>>> ')", i)
        while len(src) > 1 and _blank(src[-1]):
            src.pop()
        out_start = i
        while i < n and not _is_prompt(lines[i]):
            ln = lines[i]
            if ln.startswith(">>>"):
                err("'>>>' must be followed by a space", i)
            if _blank(ln):
                j = i
                while j < n and _blank(lines[j]):
                    j += 1
                if j == n or _is_prompt(lines[j]) or lines[j].startswith("#"):
                    break
                i = j      # the whole run of blank lines is output (looked at once)
                continue
            i += 1
        expected = ["" if ln.rstrip() == BLANKLINE else ln for ln in lines[out_start:i]]
        blank_after = 0
        while i + blank_after < n and _blank(lines[i + blank_after]):
            blank_after += 1
        blocks.append(Block("\n".join(src), start + 1, lines[start:out_start], out_start, i,
                            expected, comments, blank_after))
        comments = []
        i = gap(i)
    if not blocks:
        raise TranscriptError("no '>>> ' input: a transcript's inputs start with '>>> ' "
                              "(plain scripts run with `gradrepl run`)", 1, path)
    return Transcript(path, lines, profile, blocks, comments)


def _continuation(first: list, conts: list) -> int:
    """How many of the ``... `` lines ``conts`` continue the input ``first``: the first ``m``
    where ``first + conts[:m]`` needs no more (``needs_more``, asked with the line after it),
    else all. Asked line by line that is one compile per line, each of the whole input so far:
    quadratic in a long input. So past a few lines the answer is searched for (doubling, then
    halving): the prefixes of an input that needs more need more too (what the parser can
    still complete stays completable when cut at a line; an input ending in empty lines is
    asked without them too, as the line-by-line reading would have), so the lines that
    continue it are the ones before the first that does not: past the first lines (asked one
    by one: an input of comments alone is complete, a longer one may not be), one question
    when they all continue it (asked of the whole input), about 4 log2(n) compiles when not."""
    def ends(m):   # the input ends after conts[:m] (or before it)
        if not needs_more(first + conts[:m], conts[m]):
            return True
        k = m      # an empty line continues a block that had not ended before it: asked
        while k > 0 and _blank(conts[k - 1]):      # line by line, the input ended there
            k -= 1
        return k < m and not needs_more(first + conts[:k], conts[k])

    n = len(conts)
    for m in range(min(n, 8)):
        if ends(m):
            return m
    if n <= 8:
        return n
    if not ends(n - 1):    # (a well-formed file: every line continues its input,
        return n
    if not ends(n - 2):    # or all but the closing empty one,
        return n - 1
    b = n                            # or all before the empty ones it ends with)
    while b > 0 and _blank(conts[b - 1]):
        b -= 1
    if 8 < b < n - 1 and not ends(b) and ends(b + 1):
        return b + 1
    lo, step = 7, 1                  # ends(lo) is False
    hi = None
    while hi is None:
        m = min(lo + step, n - 1)
        if ends(m):
            hi = m
        elif m == n - 1:
            return n
        else:
            lo, step = m, step * 2
    while hi - lo > 1:               # ends(lo) False, ends(hi) True
        mid = (lo + hi) // 2
        if ends(mid):
            hi = mid
        else:
            lo = mid
    return hi


def inputs_of(text: str, path: str = "<transcript>") -> list[str]:
    """The inputs of a transcript (blocks joined with newlines); a ``.py`` script (or a file
    without ``>>>`` lines) is one input, run as a whole. ``TranscriptError`` if it does not
    parse."""
    lines = text.splitlines()
    if str(path).endswith(".py") or not any(_is_prompt(ln) for ln in lines):
        return [text]
    return [b.source for b in parse(text, path).blocks if b.source.strip()]


# ---------------------------------------------------------------------------- comparing
def output_lines(output: str) -> list[str]:
    """The shell's output text as lines (a final newline ends the last line)."""
    if not output:
        return []
    if output.endswith("\n"):
        output = output[:-1]
    return output.split("\n")


def _norm(line: str) -> str:
    return line.rstrip(" \t")


def _key(line: str) -> str:
    """A line as compared: without trailing spaces, the console's pseudo-file names as one."""
    line = line.rstrip(" \t")
    if line.lstrip().startswith('File "<'):
        line = _PSEUDO_FILE.sub(r'\1<stdin>\2', line)
    return _CONSOLE_SYNTAX.get(line, line)


def _pattern(expected) -> list:
    """The expected lines as a pattern: strings, and None for a wildcard (``...``, and the
    frame lines of a traceback)."""
    pat: list = []
    k = 0
    while k < len(expected):
        ln = _key(expected[k])
        if ln == WILDCARD:
            pat.append(None)
        elif _TRACEBACK.match(ln) or _SYNTAX_AT.match(ln):
            pat.append(ln)
            pat.append(None)
            while k + 1 < len(expected) and expected[k + 1][:1] in (" ", "\t"):
                k += 1
        else:
            pat.append(ln)
        k += 1
    return pat


# a glog record of Paddle's C++ core (``W1206 17:39:14.664452  1878 backward.cc:685] ...``):
# diagnostics with a time stamp and a thread id, written to stderr beside the output; a transcript
# recorded from real Paddle holds them, one recorded earlier does not, so neither side's count
_GLOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w.\-]+:\d+\] ")


def _compared(lines) -> list:
    return [ln for ln in lines if not _GLOG.match(ln)]


def matches(expected, output: str) -> bool:
    """Whether the shell's ``output`` is what the ``expected`` lines say (glog records of either
    side not compared)."""
    actual = [_key(ln) for ln in _compared(output_lines(output))]
    pat = _pattern(_compared(expected))
    if None not in pat:
        return pat == actual
    chunks: list[list] = [[]]
    for p in pat:
        if p is None:
            chunks.append([])
        else:
            chunks[-1].append(p)
    first, *mid, last = chunks
    if actual[:len(first)] != first:
        return False
    pos, end = len(first), len(actual) - len(last)
    if end < pos or actual[end:] != last:
        return False
    for ch in mid:
        if not ch:
            continue
        for s in range(pos, end - len(ch) + 1):
            if actual[s:s + len(ch)] == ch:
                pos = s + len(ch)
                break
        else:
            return False
    return True


def diff(block: Block, output: str, path: str) -> str:
    """A unified diff of a block's expected output against ``output``, its hunks numbered by
    the file's lines, headed by the file name and line."""
    exp = [_norm(ln) for ln in block.expected]
    got = [_norm(ln) for ln in output_lines(output)]
    where = f"{path}:{block.output_line}"
    first = block.input_lines[0] if block.input_lines else ">>>"
    head = [f"{path}:{block.line}: the output of {first.strip()!r} differs\n"]
    body = list(difflib.unified_diff(exp, got, f"{where} (expected)", f"{where} (got)",
                                     lineterm="", n=3))
    off = block.out_start
    for k, ln in enumerate(body):
        m = _HUNK.match(ln)
        if m:
            a, b = int(m.group(1)) + off, int(m.group(3)) + off
            body[k] = f"@@ -{a}{m.group(2) or ''} +{b}{m.group(4) or ''} @@{ln[m.end():]}"
    if not body:  # equal up to wildcards that failed to match: show both sides
        body = [f"--- {where} (expected)", f"+++ {where} (got)"]
        body += ["-" + ln for ln in exp] + ["+" + ln for ln in got]
    text = "".join(head) + "\n".join(body) + "\n"
    stray = [ln for ln in block.expected[:1] if ln.startswith("#")]
    if stray and not output_lines(output)[:1] == [stray[0]]:
        text += (f"note: {path}:{block.output_line}: {stray[0]!r} reads as expected output; "
                 "a comment must follow a blank line\n")
    return text


# ---------------------------------------------------------------------------- writing
def format_input(source: str, shell: bool = True) -> list[str]:
    """The input as the shell shows it: ``>>> `` then ``... `` lines, and the closing empty
    ``... `` line where the shell asks for one."""
    lines = source.split("\n")
    out = [">>> " + lines[0]] + ["... " + ln for ln in lines[1:]]
    if shell and not source.lstrip().startswith("%") and needs_more(lines):
        out.append("... ")
    return out


def format_output(output: str) -> list[str]:
    """The output as expected-output lines: ``<BLANKLINE>`` where an empty line would end it."""
    lines = output_lines(output)
    out = []
    for k, ln in enumerate(lines):
        if _blank(ln):
            rest = [x for x in lines[k + 1:] if not _blank(x)]
            if not rest or rest[0].startswith("#") or _is_prompt(rest[0]):
                ln = BLANKLINE
        out.append(ln)
    return out


def format_transcript(entries, profile: str | None = None) -> str:
    """``[(input, output)]`` as a session file: the shell's prompts, then the output (with
    ``<BLANKLINE>`` where needed). Never fails: an output that a transcript cannot hold (a line
    starting with ``>>> ``) is written as it is."""
    out = []
    if profile is not None:
        out.append(f"# gradrepl: paddle={profile}\n")
    for source, output in entries:
        out.extend(ln + "\n" for ln in format_input(source))
        out.extend(ln + "\n" for ln in format_output(output))
    return "".join(out)


def updated(t: Transcript, outputs) -> tuple[str, list]:
    """The file's text with the expected output of each block that does not match its new
    output replaced (``outputs[k]`` is block k's output, None to keep it). Returns the text and
    the indices of the blocks rewritten. ``TranscriptError`` if the result would not read back
    as the same inputs with matching outputs, or would drop ``#`` lines read as output."""
    out: list[str] = []
    changed = []
    pos = 0
    for k, (b, new) in enumerate(zip(t.blocks, outputs)):
        out.extend(t.lines[pos:b.out_start])
        if new is None or b.matches(new):
            out.extend(t.lines[b.out_start:b.out_end])
        else:
            new_lines = output_lines(new)
            for ln in b.expected:
                if ln.startswith("#") and ln not in new_lines:
                    raise TranscriptError(
                        f"{ln!r} reads as expected output (a comment must follow a blank "
                        "line) and updating would delete it; add a blank line before it",
                        b.output_line + b.expected.index(ln), t.path)
            out.extend(format_output(new))
            changed.append(k)
        pos = b.out_end
    out.extend(t.lines[pos:])
    text = "".join(ln + "\n" for ln in out)
    # read it back: the same inputs, and every new output matches what was written for it
    try:
        again = parse(text, t.path)
    except TranscriptError as exc:
        raise TranscriptError(f"the new outputs would not read back ({exc.message})",
                              exc.line, t.path) from None
    if [b.source for b in again.blocks] != [b.source for b in t.blocks]:
        raise TranscriptError("an output cannot be written in a transcript (a line starting "
                              "with '>>> ' or '... ' would read as input)",
                              _first_bad(t, again), t.path)
    for b, new in zip(again.blocks, outputs):
        if new is not None and not b.matches(new):
            raise TranscriptError("this output cannot be written in a transcript exactly",
                                  b.line, t.path)
    return text, changed


def _first_bad(t, again):
    for a, b in zip(t.blocks, again.blocks):
        if a.source != b.source:
            return a.line
    return t.blocks[min(len(t.blocks), len(again.blocks)) - 1].line
