# attack27b: what every sandbox on a host shares. `hold`: take all the PTYs and POSIX message
# queues this sandbox can get, report the counts, and keep them (a leftover process) for SECONDS;
# `probe`: what a sandbox can still get, one line each. `hold-counters`/`probe-counters`: the
# same for inotify instances (past the kernel's default 128 per uid) and pipe pages.
# `hold-shm`/`probe-shm` (uid28): a System V segment locked with SHM_LOCK, charged to the uid's
# RLIMIT_MEMLOCK (8 MiB) host-wide: all of it held, then 1 MiB asked for.
import ctypes, errno, fcntl, os, sys, time

libc = ctypes.CDLL(None, use_errno=True)
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]


def err():
    return errno.errorcode.get(ctypes.get_errno(), "?")


def open_pty():
    try:
        return os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY), ""
    except OSError as e:
        return -1, errno.errorcode.get(e.errno, "?")


def open_mq(name):
    fd = libc.mq_open(name.encode(), os.O_CREAT | os.O_RDWR, 0o600, None)
    return fd, ("" if fd >= 0 else err())


def keep(seconds):
    """The holder outlives the call: its own session, no stream of the call's open."""
    if os.fork() == 0:
        os.setsid()
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        time.sleep(seconds)
    os._exit(0)


def pipe_size():
    r, w = os.pipe()
    return fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ


def hold_counters(seconds):
    instances = [libc.inotify_init1(0) for _ in range(300)]
    why = err() if min(instances) < 0 else ""
    # 1,100 pipes of 16 pages: past the default fs.pipe-user-pages-soft (16,384) for the uid.
    pipes = [os.pipe() for _ in range(1100)]
    print(f"inotify {sum(1 for i in instances if i >= 0)} {why}\npipes {len(pipes)} {pipe_size()}", flush=True)
    keep(seconds)


def probe_counters():
    fd = libc.inotify_init1(0)
    print(f"inotify {'ok' if fd >= 0 else err()}\npipe {pipe_size()}")


def shm_lock(mib):
    libc.shmat.restype = ctypes.c_void_p
    seg = libc.shmget(0, mib << 20, 0o1600)
    libc.shmat(seg, None, 0)
    return "ok" if libc.shmctl(seg, 11, None) == 0 else err()  # SHM_LOCK


def hold_shm(seconds):
    print(f"shm {shm_lock(8)}\nmore {shm_lock(1)}", flush=True)
    keep(seconds)


def hold(seconds):
    ptys, why_pty = [], ""
    while len(ptys) < 5000:
        fd, why_pty = open_pty()
        if fd < 0:
            break
        ptys.append(fd)
    queues, why_mq = 0, ""
    while queues < 64:
        fd, why_mq = open_mq(f"/a27b-{os.getpid()}-{queues}")
        if fd < 0:
            break
        queues += 1
    print(f"ptys {len(ptys)} {why_pty}\nmqueues {queues} {why_mq}", flush=True)
    keep(seconds)


def probe():
    fd, why = open_pty()
    print(f"pty {'ok' if fd >= 0 else why}")
    fd, why = open_mq(f"/a27b-probe-{os.getpid()}")
    print(f"mqueue {'ok' if fd >= 0 else why}")
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 4, params)  # io_uring_setup (x86_64)
    print(f"io_uring {'ok' if fd >= 0 else err()}")


if sys.argv[1] == "hold":
    hold(int(sys.argv[2]))
elif sys.argv[1] == "hold-counters":
    hold_counters(int(sys.argv[2]))
elif sys.argv[1] == "probe-counters":
    probe_counters()
elif sys.argv[1] == "hold-shm":
    hold_shm(int(sys.argv[2]))
elif sys.argv[1] == "probe-shm":
    print(f"shm {shm_lock(1)}")
else:
    probe()
