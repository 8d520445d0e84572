"""The ``--safe`` child's own view of the file system: only what it may read, and a folder of
fixed size.

Landlock decides which files the child may *open*; it does not handle what can be learnt about
a path without opening it: ``stat``/``lstat``/``statx``/``access``/``readlink``/``statfs`` (and
the ``*at`` forms) of any path outside still tell whether it exists, its size, times, owner and
mode, a symbolic link's target. Seccomp cannot filter by path. So, where the kernel lets an
unprivileged process make a user and a mount namespace (``unshare(CLONE_NEWUSER |
CLONE_NEWNS)``), ``enter`` gives the child a root of its own before it is confined:

- a small tmpfs as ``/``, holding only mount points: the directories and files the child may
  read (``kernel.read_roots``: the standard library, the packages gradrepl needs, the mapped
  shared libraries and their system directory, ``/etc/ld.so.cache``, ``/dev/null``,
  ``/dev/urandom``) bound read-only at their own paths, and the symbolic links that lead to
  them (``/lib``, the virtual environment's ``bin/python`` ...);
- the child's folder, at its own path, a *fresh tmpfs* of ``disk_mb`` megabytes and
  ``entries`` inodes (the disk budget, held by the kernel: past it a write fails with ENOSPC),
  gone with the child;
- no ``/proc``, ``/sys``, ``/home``, ``/tmp``, no ``/etc`` but the loader's cache: a path
  outside is not there (ENOENT), whatever is asked about it.

The mappings are the child's own user and group (nothing changes in what it may open), and
``kernel.confine`` then drops every capability the new namespace gave, sets no_new_privs and
refuses ``mount``/``umount2``/``pivot_root``/``unshare``/``setns`` by seccomp.

``enter`` first tries the same steps in a throw-away forked process: where user namespaces are
refused or restricted (Ubuntu 24.04's AppArmor ``apparmor_restrict_unprivileged_userns``, a
container without them), it changes nothing and returns a line saying why: the child then runs
with Landlock and seccomp alone, metadata outside stays visible as listed in ``kernel.py``'s
docstring, and the parent holds the disk budget by measuring the folder
(``safe_budget.folder_usage``).
"""
from __future__ import annotations

import ctypes
import os
import platform

__all__ = ["enter"]

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41}
# statvfs flags a read-only remount of a bind must keep (the kernel refuses to drop them in a
# user namespace)
_LOCKED = ((os.ST_NOSUID, _MS_NOSUID), (os.ST_NODEV, _MS_NODEV), (os.ST_NOEXEC, _MS_NOEXEC))


class _Failed(OSError):
    pass


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                           ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    libc.unshare.argtypes = [ctypes.c_int]
    libc.syscall.restype = ctypes.c_long
    return libc


def _check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise _Failed(e, f"{what}: {os.strerror(e)}")


def _b(p):
    return None if p is None else os.fsencode(p)


def _write(path, text):
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def _namespaces(libc) -> None:
    uid, gid = os.geteuid(), os.getegid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
    try:
        _write("/proc/self/setgroups", "deny")
    except FileNotFoundError:
        pass
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "private mounts")


def _mkdirs(root, path):
    os.makedirs(root + path, exist_ok=True)


def _links_to(path, links: dict, seen: dict, depth=0) -> None:
    """Every symbolic link met on the way to ``path`` (by its real parent), into ``links``;
    ``seen``: the folders already known to hold no link on the way (shared between calls)."""
    if depth > 16:
        return
    cur = ""
    parts = [p for p in path.split("/") if p]
    for i, part in enumerate(parts):
        nxt = cur + "/" + part
        if nxt in seen:
            cur = nxt
            continue
        if os.path.islink(nxt):
            links[nxt] = target = os.readlink(nxt)
            # on through the link's own target (a chain of links: each one mirrored)
            _links_to(os.path.normpath(os.path.join(os.path.realpath(cur or "/"), target,
                                                    *parts[i + 1:])), links, seen, depth + 1)
            return
        if i < len(parts) - 1:
            seen[nxt] = True
        cur = nxt


def _build(libc, root, dirs, files, workdir, disk_mb, entries, aliases) -> None:
    _check(libc.mount(b"tmpfs", _b(root), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                      b"size=4m,nr_inodes=65536,mode=0755"), "tmpfs root")
    binds = []
    for d in sorted({os.path.realpath(d) for d in dirs if os.path.isdir(d)}):
        _mkdirs(root, d)
        binds.append(d)
    # (the standard library's entries come as "dirs", its modules among them)
    for f in sorted({os.path.realpath(f) for f in [*files, *dirs] if os.path.exists(f)}):
        if os.path.isdir(f):
            continue
        _mkdirs(root, os.path.dirname(f))
        if not os.path.exists(root + f):
            with open(root + f, "wb"):
                pass
        binds.append(f)
    for src in binds:
        _check(libc.mount(_b(src), _b(root + src), None, _MS_BIND | _MS_REC, None),
               f"bind {src}")
        try:
            st = os.statvfs(src)
            keep = sum(ms for st_flag, ms in _LOCKED if st.f_flag & st_flag)
            libc.mount(None, _b(root + src), None,
                       _MS_BIND | _MS_REMOUNT | _MS_RDONLY | keep, None)
        except OSError:
            pass    # (Landlock refuses writes there anyway)
    links: dict = {}
    seen: dict = {}
    for p in [*dirs, *files, *aliases]:
        _links_to(p, links, seen)
    for n in os.listdir("/"):
        if os.path.islink("/" + n):
            links["/" + n] = os.readlink("/" + n)
    for path, target in links.items():
        where = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if not os.path.lexists(root + where):
            _mkdirs(root, os.path.dirname(where))
            os.symlink(target, root + where)
    real = os.path.realpath(workdir)
    _mkdirs(root, real)
    _check(libc.mount(b"tmpfs", _b(root + real), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                      f"size={max(1, int(disk_mb))}m,nr_inodes={max(16, int(entries))},"
                      f"mode=0700".encode()), "tmpfs folder")
    nr = _SYS_PIVOT_ROOT.get(platform.machine())
    if nr is None:
        raise _Failed(0, f"pivot_root: not known on {platform.machine()}")
    os.chdir(root)
    _check(libc.syscall(ctypes.c_long(nr), b".", b"."), "pivot_root")
    _check(libc.umount2(b".", _MNT_DETACH), "detach the old root")
    os.chdir(real)


def _trial(libc, workdir) -> str | None:
    """The steps that a restricted system refuses, in a forked process: None if they work."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            _namespaces(libc)
            probe = os.path.join(workdir, ".fsview-probe")
            os.mkdir(probe)
            _check(libc.mount(b"tmpfs", _b(probe), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                              b"size=1m"), "tmpfs")
            os._exit(0)
        except BaseException as exc:  # noqa: BLE001 - the reason travels on the pipe
            try:
                os.write(w, str(exc)[:300].encode("utf-8", "replace"))
            finally:
                os._exit(1)
    os.close(w)
    why = b""
    while True:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        why += chunk
    os.close(r)
    _pid, status = os.waitpid(pid, 0)
    try:
        os.rmdir(os.path.join(workdir, ".fsview-probe"))
    except OSError:
        pass
    if os.waitstatus_to_exitcode(status) == 0:
        return None
    return why.decode("utf-8", "replace") or "user namespaces are not available"


def enter(workdir: str, dirs, files, disk_mb: float, entries: int, aliases=()) -> str | None:
    """Give this (single-threaded, not yet confined) process the view described above; None
    when done, else one line saying why not (nothing was changed then). ``aliases``: more
    paths whose symbolic links must lead to the same places (``sys.path`` entries, the
    interpreter). Raises ``OSError`` if it fails after the trial worked."""
    if not hasattr(os, "fork"):
        return "no fork"
    libc = _libc()
    why = _trial(libc, workdir)
    if why is not None:
        return why
    _namespaces(libc)
    # the new root: mounted over the child's folder (it is replaced by its own tmpfs inside)
    _build(libc, os.path.realpath(workdir), dirs, files, workdir, disk_mb, entries, aliases)
    return None
