# Attack 6: hammers connect() on the host socket for at most 5 s and 50,000 attempts, and
# counts how many connects succeeded.
import socket, time
print("FLOODING", flush=True)
deadline = time.time() + 5
ok = failed = 0
while time.time() < deadline and ok + failed < 50000:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("/run/toolshed/host.sock")
        ok += 1
    except OSError:
        failed += 1
    finally:
        s.close()
print("ok=%d failed=%d" % (ok, failed))
