"""The kernel's layer of ``--safe``: what the child process may do, enforced by Linux itself.

``confine(workdir)`` is called in the sandbox's child, after the modules it needs are imported
and before any session code runs; from then on, whatever the session's code manages in Python
(the static check and the audit hook are only filters in front of this), the kernel refuses:

- **Files** (Landlock, ``landlock_create_ruleset``/``add_rule``/``restrict_self``, ABI 3 or
  later): writing, creating, removing, renaming, truncating or linking anything outside
  ``workdir``; reading anything outside the interpreter's standard library, the packages
  gradrepl needs (``NEEDED_PACKAGES``: numpy, gradrepl, numexpr, randomgen, their ``.libs``,
  and the site-packages directories of the modules already loaded, never ``site-packages``
  as a whole), the shared libraries already mapped and the system directories they come from
  (``/usr/lib/x86_64-linux-gnu``: what a C extension imported later links against),
  ``/etc/ld.so.cache``, ``/dev/null`` (read, write) and ``/dev/urandom``. Nothing may be
  executed (no ``execute`` right anywhere), and no device node made. The session text is not a
  path the child can read: the parent sends it over a pipe. With ABI 4 or later, TCP bind and
  connect are refused too; with ABI 6 or later, signals and abstract UNIX sockets outside the
  child's own domain.
- **System calls** (seccomp, through the system's ``libseccomp.so.2``, filter synchronised over
  all threads): no new processes (``execve``, ``execveat``, ``fork``, ``vfork``, ``clone``
  without ``CLONE_THREAD``; ``clone3`` answers ``ENOSYS`` so the C library falls back to
  ``clone``, whose flags the filter can read), no sockets (``socket``, ``socketpair``: none is
  needed, the results go over an inherited pipe), no ``ptrace``/``process_vm_*``/``pidfd_*``,
  no signals to other processes, no ``TIOCSTI``, and none of the administrator's calls (mount,
  namespaces, modules, BPF, perf, io_uring, keys, clocks, ``open_by_handle_at`` ...). Nothing
  that reaches another process or sees outside: ``prlimit64``, ``setpriority``,
  ``ioprio_set``, ``sched_set*``, ``getsid``/``getpgid``/``setpgid`` only on the child itself
  (pid 0), and their readers too (``getpriority``, ``ioprio_get``, ``sched_get*``,
  ``get_robust_list``; ``capget`` refused: each says whether a pid exists, so any of them
  listed the machine's processes); no ``fcntl`` F_SETOWN/F_SETSIG/F_SETOWN_EX/F_NOTIFY nor their ioctls (FIOSETOWN,
  SIOCSPGRP, TIOCSPGRP): the signals Landlock scopes only from ABI 6 cannot be aimed at
  another process at any ABI; no System V IPC or POSIX message queues (objects shared with
  other processes, outliving the run); no inotify/fanotify, ``name_to_handle_at``. No memory
  or disk outside the budgets: no ``memfd_create``/``memfd_secret`` (RAM outside RLIMIT_AS),
  no ``O_TMPFILE`` (``openat2`` answers ``ENOSYS``), and nothing in the child's folder may be
  removed or renamed (Landlock): a file without a name would be missed by the folder's
  measure. Old or rarely used kernel interfaces are refused (``modify_ldt``, ``sysfs``,
  ``ustat``, ``vm86``). A refused
  call fails with ``EPERM`` (Python raises ``PermissionError``); a call of another
  architecture's ABI kills the process.
- **Metadata** (Landlock handles only opening, not what is learnt or changed about a path
  without opening it). Changed: ``chmod``/``chown``/``utime``/``*xattr`` writes (and their
  ``f*``/``*at`` forms, ``fchmodat2``, ``file_setattr``) are refused outright, so the child
  cannot change a teacher's file's mode, owner, times or attributes, not even through a
  descriptor it may read. Read: ``getxattr``/``listxattr`` (all forms) answer "not supported";
  ``listmount``/``statmount``/``file_getattr`` are refused; the parent-death signal cannot be
  changed (``prctl(PR_SET_PDEATHSIG)``). ``stat``/``lstat``/``statx``/``newfstatat``/
  ``access``/``faccessat2``/``readlink``/``statfs`` cannot be refused by seccomp (it cannot
  read a path; every import needs them): with the child's own file system view
  (``fsview.py``, where user namespaces are available: ``confine(view=...)``) a path outside
  what it may read does not exist for it at all. Without the view (Ubuntu 24.04's default
  AppArmor restriction, containers without user namespaces) those calls still tell, for any
  path the teacher's user may search: whether it exists, its type, size, mode, owner, times,
  inode and device, a link's target, the free space of its file system; never its contents or
  a folder's names (listing is Landlock's ``read_dir``), and ``/proc``/``/sys`` stay unreadable.
- ``PR_SET_NO_NEW_PRIVS`` (needed by both, and no set-uid program could regain anything), and,
  when running as root, every capability dropped (a root child could otherwise ``mknod`` a
  disk or remount).

The resource limits (CPU, memory, file size, open files, processes) are set by the parent
between fork and exec (``sandbox._make_limits``), so they hold from the child's first
instruction.

Where the kernel lacks one of these (not Linux, Landlock older than ABI 3 or disabled, no
seccomp, no ``libseccomp.so.2``, an architecture without a syscall table here), ``probe()``
returns one line saying why and ``--safe`` refuses to run (exit 2): it never falls back to a
weaker layer. ``confine`` raises ``KernelSandboxError`` for the same reasons, and when the
process has more than one thread (Landlock confines the calling thread and the threads it
starts later only).

Only ctypes and the C library are used: no package to install. (``pyseccomp`` wraps the same
``libseccomp``; the ``landlock`` package needs a newer Python than some installs have; the
dozen calls here are less code than either dependency.)
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys

__all__ = ["KernelSandboxError", "probe", "confine", "landlock_abi", "read_roots",
           "MIN_LANDLOCK_ABI"]

# the installed packages gradrepl computes with (their directories are readable, imported or not)
NEEDED_PACKAGES = ("numpy", "gradrepl", "numexpr", "randomgen")
MIN_LANDLOCK_ABI = 3   # TRUNCATE is handled from ABI 3: below it, truncate(2) is not confined


class KernelSandboxError(OSError):
    """The kernel cannot confine the child (one line: why)."""


# ----------------------------------------------------------------------------- Landlock
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on every arch
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_FS = {name: 1 << bit for bit, name in enumerate(
    "execute write_file read_file read_dir remove_dir remove_file make_char make_dir make_reg "
    "make_sock make_fifo make_block make_sym refer truncate ioctl_dev".split())}
# the rights each ABI adds (handled = all rights of the running ABI: what is not granted is denied)
_FS_BY_ABI = {1: (1 << 13) - 1, 2: _FS["refer"], 3: _FS["truncate"], 5: _FS["ioctl_dev"]}
_FILE_RIGHTS = _FS["execute"] | _FS["write_file"] | _FS["read_file"] | _FS["truncate"] | \
    _FS["ioctl_dev"]
_NET_TCP = 1 | 2                  # bind, connect (ABI 4)
_SCOPE_ALL = 1 | 2                # abstract UNIX sockets, signals (ABI 6)

_READ = _FS["read_file"] | _FS["read_dir"]
# nothing in the child's folder may be removed or renamed (a session has no use for it): a file
# removed while still open, or replaced by a rename, keeps its blocks where the folder's
# measure (``safe_budget.folder_usage``, without a private tmpfs) cannot see them
_WRITE_DIR = (_READ | _FS["write_file"] | _FS["make_dir"] | _FS["make_reg"] | _FS["make_sym"]
              | _FS["make_fifo"] | _FS["make_sock"] | _FS["refer"] | _FS["truncate"])


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_abi() -> int:
    """The Landlock ABI version the kernel reports (0: none, or disabled)."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = _libc()
    v = libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                     ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return int(v) if v > 0 else 0


def _handled_fs(abi: int) -> int:
    return sum(bits for since, bits in _FS_BY_ABI.items() if abi >= since)


def _landlock(libc, abi: int, reads, read_files, writes, write_files, listed=()) -> None:
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled, _NET_TCP if abi >= 4 else 0, _SCOPE_ALL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    fd = libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), ctypes.byref(attr),
                      ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise KernelSandboxError(f"Landlock: cannot create a ruleset "
                                 f"({os.strerror(ctypes.get_errno())})")
    try:
        def add(path, rights):
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                return  # not there: nothing to allow
            try:
                if not os.path.isdir(path):
                    rights &= _FILE_RIGHTS
                rule = _PathBeneath(rights & handled, pfd)
                rc = libc.syscall(ctypes.c_long(_SYS_ADD_RULE), ctypes.c_int(fd),
                                  ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                                  ctypes.c_uint32(0))
                if rc != 0:
                    raise KernelSandboxError(f"Landlock: cannot add a rule for {path} "
                                             f"({os.strerror(ctypes.get_errno())})")
            finally:
                os.close(pfd)

        for p in listed:
            add(p, _FS["read_dir"])
        for p in reads:
            add(p, _READ)
        for p in read_files:
            add(p, _FS["read_file"])
        for p in writes:
            add(p, _WRITE_DIR)
        for p in write_files:
            add(p, _FS["read_file"] | _FS["write_file"])
        if libc.syscall(ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(fd),
                        ctypes.c_uint32(0)) != 0:
            raise KernelSandboxError(f"Landlock: restrict_self failed "
                                     f"({os.strerror(ctypes.get_errno())})")
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- seccomp
_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_ACT_KILL_PROCESS = 0x80000000
_FLTATR_ACT_BADARCH = 2
_FLTATR_CTL_TSYNC = 4
_CMP_NE, _CMP_EQ, _CMP_MASKED_EQ = 1, 4, 7
_CLONE_THREAD = 0x00010000
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


# refused outright (EPERM)
_DENIED_CALLS = """
    execve execveat fork vfork socket socketpair ptrace process_vm_readv process_vm_writev
    pidfd_open pidfd_send_signal pidfd_getfd tkill mount umount umount2 pivot_root chroot
    unshare setns bpf perf_event_open userfaultfd io_uring_setup io_uring_enter
    io_uring_register keyctl add_key request_key open_by_handle_at kexec_load kexec_file_load
    init_module finit_module delete_module reboot swapon swapoff iopl ioperm acct quotactl
    syslog sethostname setdomainname settimeofday clock_settime clock_adjtime adjtimex mknod
    mknodat fanotify_init lookup_dcookie move_mount open_tree fsopen fsconfig fsmount fspick
    mount_setattr uselib nfsservctl vhangup personality process_madvise kcmp
    msgget msgsnd msgrcv msgctl semget semop semtimedop semctl shmget shmat shmdt shmctl ipc
    mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
    inotify_init inotify_init1 inotify_add_watch fanotify_mark name_to_handle_at
    migrate_pages move_pages process_mrelease
    chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat utime utimes utimensat
    futimesat setxattr lsetxattr fsetxattr setxattrat removexattr lremovexattr fremovexattr
    removexattrat quotactl_fd listmount statmount open_tree_attr file_setattr file_getattr
    memfd_create memfd_secret capget modify_ldt sysfs ustat _sysctl vm86 vm86old
""".split()
# calls newer than some libseccomp (it cannot name them): their numbers, the same on every
# architecture from 424 on (the common table), so a filter made with an older library still
# refuses them
_COMMON_NUMBERS = {"quotactl_fd": 443, "fchmodat2": 452, "statmount": 457, "listmount": 458,
                   "setxattrat": 463, "getxattrat": 464, "listxattrat": 465,
                   "removexattrat": 466, "open_tree_attr": 467, "file_getattr": 468,
                   "file_setattr": 469}
# the metadata of files, read by path: Landlock handles none of it. Extended attributes are
# answered "not supported" (as on a file system without them); stat/access/readlink cannot be
# refused (every import needs them): only the minimal file system view (``fsview.py``) hides
# what is outside
_NOT_SUPPORTED_CALLS = ("getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
                        "flistxattr", "getxattrat", "listxattrat")
_PR_SET_PDEATHSIG_NR = 1    # prctl: the parent-death signal cannot be changed (or dropped)
# calls that name a process (argument 0): allowed on the caller only (0), refused on any other
# pid: another process's limits, priority, CPUs, scheduling, session or group
_SELF_ONLY_CALLS = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam",
                    "sched_setattr", "getsid", "getpgid", "setpgid",
                    # ... and reading them: each answers ESRCH for a pid that does not exist,
                    # so any of them lists the machine's processes (and their settings)
                    "sched_getaffinity", "sched_getscheduler", "sched_getparam",
                    "sched_getattr", "sched_rr_get_interval", "get_robust_list")
# open(2)/openat(2) with O_TMPFILE (a file with no name: the folder's measure misses it);
# the argument holding the flags
_O_TMPFILE = 0o20000000
_OPEN_FLAGS_ARG = {"open": 1, "openat": 2}
# fcntl commands that make the kernel send signals to a chosen process (F_SETOWN, F_SETSIG,
# F_SETOWN_EX) or watch a folder (F_NOTIFY, dnotify)
_FCNTL_DENIED = (8, 10, 15, 1026)
# their ioctl forms (FIOSETOWN, SIOCSPGRP) and the terminal's foreground group (TIOCSPGRP)
_IOCTL_DENIED = (0x8901, 0x8902, 0x5410)


def _libseccomp():
    for name in ("libseccomp.so.2", "libseccomp.so"):
        try:
            return ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
    return None


def _seccomp(lib, pid: int) -> None:
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
    if not ctx:
        raise KernelSandboxError("seccomp: cannot make a filter")
    try:
        def rule(name, action, *cmps):
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:
                nr = _COMMON_NUMBERS.get(name, -1)
            if nr < 0:
                return  # no such call on this architecture
            arr = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
            rc = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr)
            if rc != 0:
                raise KernelSandboxError(f"seccomp: cannot add the rule for {name} "
                                         f"({os.strerror(-rc)})")

        eperm = _errno_action(errno.EPERM)
        for name in _DENIED_CALLS:
            rule(name, eperm)
        for name in _NOT_SUPPORTED_CALLS:
            rule(name, _errno_action(errno.EOPNOTSUPP))
        rule("prctl", eperm, (0, _CMP_EQ, _PR_SET_PDEATHSIG_NR, 0))
        rule("clone", eperm, (0, _CMP_MASKED_EQ, _CLONE_THREAD, 0))   # a process, not a thread
        rule("clone3", _errno_action(errno.ENOSYS))                    # flags unreadable: fall back
        for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
            rule(name, eperm, (0, _CMP_NE, pid, 0))                    # only to itself
        for name in _SELF_ONLY_CALLS:
            rule(name, eperm, (0, _CMP_NE, 0, 0))
        # setpriority(which, who, prio) / ioprio_set(which, who, prio): this process only
        # (PRIO_PROCESS 0 / IOPRIO_WHO_PROCESS 1, who 0): a group's or the user's are others
        rule("setpgid", eperm, (1, _CMP_NE, 0, 0))
        for name in ("setpriority", "getpriority"):
            rule(name, eperm, (0, _CMP_NE, 0, 0))
            rule(name, eperm, (1, _CMP_NE, 0, 0))
        for name in ("ioprio_set", "ioprio_get"):
            rule(name, eperm, (0, _CMP_NE, 1, 0))
            rule(name, eperm, (1, _CMP_NE, 0, 0))
        for name, arg in _OPEN_FLAGS_ARG.items():
            rule(name, eperm, (arg, _CMP_MASKED_EQ, _O_TMPFILE, _O_TMPFILE))
        rule("openat2", _errno_action(errno.ENOSYS))     # (its flags are in memory: unreadable)
        for name in ("fcntl", "fcntl64"):
            for cmd in _FCNTL_DENIED:
                rule(name, eperm, (1, _CMP_MASKED_EQ, 0xFFFFFFFF, cmd))
        for req in (_TIOCSTI, _TIOCLINUX, *_IOCTL_DENIED):
            # the kernel reads the request as 32 bits: compare only those (high bits set
            # would otherwise slip past an exact comparison)
            rule("ioctl", eperm, (1, _CMP_MASKED_EQ, 0xFFFFFFFF, req))
        if lib.seccomp_attr_set(ctx, _FLTATR_ACT_BADARCH, _SCMP_ACT_KILL_PROCESS) != 0:
            raise KernelSandboxError("seccomp: cannot set the action for other ABIs")
        if lib.seccomp_attr_set(ctx, _FLTATR_CTL_TSYNC, 1) != 0:
            raise KernelSandboxError("seccomp: cannot synchronise the filter over threads")
        rc = lib.seccomp_load(ctx)
        if rc != 0:
            raise KernelSandboxError(f"seccomp: cannot load the filter ({os.strerror(-rc)})")
    finally:
        lib.seccomp_release(ctx)


# ----------------------------------------------------------------------------- capabilities
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91, "arm64": 91, "riscv64": 91}
_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(libc) -> None:
    nr = _SYS_CAPSET.get(platform.machine())
    if nr is None:
        raise KernelSandboxError(f"cannot drop root's capabilities on {platform.machine()}")
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    if libc.syscall(ctypes.c_long(nr), ctypes.byref(header), ctypes.byref(data)) != 0:
        raise KernelSandboxError(f"cannot drop root's capabilities "
                                 f"({os.strerror(ctypes.get_errno())})")


# ----------------------------------------------------------------------------- the whole
def _emulated_on() -> str | None:
    """The host's architecture when this process is emulated (qemu-user shows the host's
    ``/proc/cpuinfo``: x86 ``vendor_id`` lines to an aarch64 Python), else None."""
    if platform.machine().lower() in ("x86_64", "amd64", "i386", "i686"):
        return None
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    x86 = any(line.split(":")[0].strip() == "vendor_id" and line.split(":", 1)[-1].strip()
              in ("GenuineIntel", "AuthenticAMD", "HygonGenuine") for line in text.splitlines())
    return "x86-64" if x86 else None


def probe() -> str | None:
    """None if this kernel can confine a ``--safe`` child; else one line saying what lacks."""
    if not sys.platform.startswith("linux"):
        return (f"--safe needs Linux (Landlock and seccomp); this system is "
                f"{platform.system() or sys.platform}")
    host = _emulated_on()
    if host:
        return (f"--safe cannot run under user-mode emulation (this {platform.machine()} Python "
                f"runs on an {host} kernel through qemu-user, which passes neither Landlock nor "
                f"seccomp through)")
    abi = landlock_abi()
    if abi == 0:
        return ("--safe needs Landlock (Linux 6.2 or later, enabled with lsm=landlock); this "
                "kernel does not offer it")
    if abi < MIN_LANDLOCK_ABI:
        return (f"--safe needs Landlock ABI {MIN_LANDLOCK_ABI} (Linux 6.2 or later); this kernel "
                f"reports ABI {abi}")
    if _libseccomp() is None:
        return "--safe needs the seccomp library libseccomp.so.2 (apt-get install libseccomp2)"
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            if "Seccomp:" not in f.read():
                return "--safe needs seccomp filters; this kernel has no seccomp"
    except OSError:
        pass
    if os.geteuid() == 0 and platform.machine() not in _SYS_CAPSET:
        return f"--safe as root needs to drop capabilities, not done on {platform.machine()}"
    return None


def read_roots() -> tuple[list, list]:
    """``(directories, files)`` the child may read: the standard library, the packages of
    the modules loaded so far that live in a site directory (by top-level package), numpy's
    and gradrepl's directories, and the shared libraries this process has mapped."""
    import sysconfig

    paths = sysconfig.get_paths()
    stdlib = os.path.realpath(paths["stdlib"])
    site_dirs = {os.path.realpath(p) for p in (paths.get("purelib"), paths.get("platlib")) if p}
    site_dirs |= {os.path.realpath(p) for p in sys.path
                  if p and os.path.basename(p) in ("site-packages", "dist-packages")}
    dirs: set = set()
    # the standard library, entry by entry, without the site directories under it
    for root in {stdlib, os.path.realpath(paths.get("platstdlib") or stdlib)}:
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for n in names:
            p = os.path.join(root, n)
            if os.path.realpath(p) not in site_dirs:
                dirs.add(p)
    files = set()
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if not isinstance(f, str):
            continue
        f = os.path.realpath(f)
        for sd in site_dirs:
            if f.startswith(sd + os.sep):
                top = f[len(sd) + 1:].split(os.sep)[0]
                dirs.add(os.path.join(sd, top))
                break
    import importlib.util

    for pkg in NEEDED_PACKAGES:           # found, not imported
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            spec = None
        for p in (spec.submodule_search_locations or ()) if spec is not None else ():
            dirs.add(os.path.realpath(p))
    for sd in site_dirs:
        for pkg in NEEDED_PACKAGES:       # their bundled shared libraries
            libs = os.path.join(sd, pkg + ".libs")
            if os.path.isdir(libs):
                dirs.add(libs)
    libdirs: set = set()
    site_roots = tuple(sd + os.sep for sd in site_dirs)
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    p = parts[5].rstrip("\n")
                    if not p.endswith(" (deleted)") and os.path.isfile(p):
                        files.add(p)
                        if ".so" in os.path.basename(p) and not p.startswith(site_roots):
                            # the system's library directory (libc's, libstdc++'s): what a
                            # C extension imported later links against
                            libdirs.add(os.path.dirname(p))
    except OSError:
        pass
    # never "/" or "/usr", nor a directory holding site-packages (libpython's own lib/: its
    # libraries are allowed file by file above)
    dirs |= {d for d in libdirs if d.count(os.sep) >= 2 and not any(
        sd.startswith(d + os.sep) for sd in (*site_dirs, stdlib))}
    files.add("/dev/urandom")
    files.add("/etc/ld.so.cache")
    return sorted(dirs), sorted(files)


def confine(workdir: str, extra_reads=(), extra_writes=(), view=None) -> str | None:
    """Confine this process (see the module docstring): only ``workdir`` (and
    ``extra_writes``) writable, reads as ``read_roots()`` (and ``extra_reads``), no
    processes, no sockets. Irreversible. Raises ``KernelSandboxError`` when it cannot.

    ``view=(disk_mb, entries)``: first give the process its own file system view
    (``fsview.enter``: only the readable paths exist, ``workdir`` a tmpfs of that size) where
    the kernel allows it. Returns None when the view was made (or not asked for), else the
    line saying why not (then metadata outside stays visible, as the docstring says)."""
    why = probe()
    if why:
        raise KernelSandboxError(why)
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = 1
    if threads != 1:
        raise KernelSandboxError(f"the process has {threads} threads; Landlock confines only "
                                 "the calling thread, so confine() must come first")
    libc = _libc()
    dirs, files = read_roots()
    for p in extra_reads:
        (dirs if os.path.isdir(p) else files).append(os.path.realpath(p))
    writes = [os.path.realpath(workdir), *(os.path.realpath(p) for p in extra_writes)]
    abi, lib = landlock_abi(), _libseccomp()   # (before the view: it has no /proc)
    why_not = None
    if view is not None and not extra_writes:
        from . import fsview

        try:
            why_not = fsview.enter(workdir, dirs, [*files, "/dev/null"], view[0], view[1],
                                   aliases=[*sys.path, sys.executable, sys.prefix])
        except OSError as exc:
            raise KernelSandboxError(f"the child's file system view: {exc}") from None
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise KernelSandboxError(f"prctl(PR_SET_NO_NEW_PRIVS) failed "
                                 f"({os.strerror(ctypes.get_errno())})")
    if os.geteuid() == 0 or (view is not None and why_not is None):
        _drop_capabilities(libc)   # (root's, or those the new user namespace gave)
    listed = []
    if view is not None and why_not is None:
        # in the view only what may be read exists: the folders holding it may be listed
        # (Python's importer lists sys.path's folders; their mtimes changed with the view)
        listed = sorted({os.path.dirname(d) for d in dirs} | {
            os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)})
    _landlock(libc, abi, dirs, files, writes, ["/dev/null"], listed)
    _seccomp(lib, os.getpid())
    return why_not
