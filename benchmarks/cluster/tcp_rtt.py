import socket, sys, time
if sys.argv[1] == 'srv':
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', 5002)); s.listen(1)
    c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        d = c.recv(64)
        if not d: break
        c.sendall(d)
else:
    c = socket.create_connection((sys.argv[2], 5002)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    n = int(sys.argv[3]); ts = []
    for _ in range(n):
        t0 = time.perf_counter(); c.sendall(b'x'); c.recv(64); ts.append(time.perf_counter() - t0)
    ts.sort(); print("rtt median %.1f us p10 %.1f us" % (ts[n // 2] * 1e6, ts[n // 10] * 1e6))
