#!/usr/bin/env python3
"""Time of one TCP message of BYTES after an idle gap (docs/cluster.md, "Allreduce"): the sender
writes BYTES, the receiver answers one byte once all have arrived; the time is from the first
write to the answer, i.e. BYTES / goodput + one-way delay x 2 plus what TCP's congestion window
adds (slow start after idle: net.ipv4.tcp_slow_start_after_idle). Between messages the sender
sleeps GAP ms (0: back to back, the window stays open; above the RTO, ~200 ms: the window
restarts unless slow start after idle is off).

  receiver:  tcp_transfer.py srv [PORT]
  sender:    tcp_transfer.py cli HOST BYTES COUNT GAP_MS [PORT]
Prints the median, min and max message time in ms over COUNT messages (the first, which opens
the connection's window from scratch, is dropped).
"""
import socket
import statistics
import sys
import time


def serve(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(1)
    c, _ = s.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray(1 << 20)
    while True:
        head = c.recv(8, socket.MSG_WAITALL)
        if len(head) < 8:
            return
        left = int.from_bytes(head, "little")
        while left > 0:
            got = c.recv_into(buf, min(left, len(buf)))
            if got == 0:
                return
            left -= got
        c.sendall(b"k")


def send(host, nbytes, count, gap_ms, port):
    c = socket.create_connection((host, port))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    payload = nbytes.to_bytes(8, "little") + bytes(nbytes)
    times = []
    for _ in range(count + 1):
        time.sleep(gap_ms / 1e3)
        t0 = time.perf_counter()
        c.sendall(payload)
        if c.recv(1) != b"k":
            raise SystemExit("tcp_transfer.py: the receiver closed the connection")
        times.append((time.perf_counter() - t0) * 1e3)
    times = times[1:]
    print("bytes %d gap %g ms: median %.2f ms min %.2f max %.2f (n=%d)" %
          (nbytes, gap_ms, statistics.median(times), min(times), max(times), count))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "srv":
        serve(int(sys.argv[2]) if len(sys.argv) > 2 else 5003)
    elif len(sys.argv) >= 6 and sys.argv[1] == "cli":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
             int(sys.argv[6]) if len(sys.argv) > 6 else 5003)
    else:
        raise SystemExit(__doc__)
