#!/usr/bin/env python3
"""Hostile clients for one `dpsearch serve` (issue 21's resource limits).

Opens, against 127.0.0.1:PORT and in this order:
  --silent N   connections that never send a byte (the handshake timeout)
  --idle N     greeted connections that then say nothing (the idle timeout)
  --giant N    greeted connections that send a frame header claiming 1 MiB
               and then nothing (memory must follow bytes, not claims)
  --slow N     greeted connections that pipeline --slow-queries queries for
               a common term and never read (the unread-output limits)
  --heavy N    greeted connections that pipeline --heavy-queries ANDs of
               4,095 terms each, read and repeated (planning off the
               network thread)
then holds them --hold seconds, printing one line of what it holds every
few seconds, and closes everything. The frames follow docs/PROTOCOL.md
(version 7); the words must be the index's analyzed terms.
"""
import argparse
import resource
import select
import socket
import struct
import sys
import time

VERSION = 7


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def lp(s):
    b = s.encode()
    return varint(len(b)) + b


def frame(kind, payload):
    return struct.pack("<IB", len(payload) + 1, kind) + payload


def hello():
    return frame(0x01, struct.pack("<IH", 0x57535044, VERSION) + lp(""))


def term(t):
    return b"\x00" + lp(t)


def and_of(terms):
    return b"\x01" + varint(len(terms)) + b"".join(term(t) for t in terms)


def query(rid, root, last_tablet):
    payload = (struct.pack("<QB", rid, 0) + varint(0) + struct.pack("<III", 0, 0, last_tablet) +
               varint(4096) + root)
    return frame(0x10, payload)


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    return s


def send_all(s, data):
    s.setblocking(True)
    s.sendall(data)
    s.setblocking(False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--last-tablet", type=int, required=True)
    ap.add_argument("--word", required=True, help="a common term of the index")
    ap.add_argument("--silent", type=int, default=0)
    ap.add_argument("--idle", type=int, default=0)
    ap.add_argument("--giant", type=int, default=0)
    ap.add_argument("--slow", type=int, default=0)
    ap.add_argument("--slow-queries", type=int, default=50)
    ap.add_argument("--heavy", type=int, default=0)
    ap.add_argument("--heavy-queries", type=int, default=100)
    ap.add_argument("--hold", type=float, default=30)
    a = ap.parse_args()
    want = a.silent + a.idle + a.giant + a.slow + a.heavy + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, want)), hard))

    held = []
    refused = 0
    def open_some(n, first_bytes, rcvbuf=None):
        nonlocal refused
        for _ in range(n):
            try:
                s = connect(a.port)
                if rcvbuf:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
                if first_bytes:
                    send_all(s, first_bytes)
                held.append(s)
            except OSError:
                refused += 1

    open_some(a.silent, b"")
    open_some(a.idle, hello())
    open_some(a.giant, hello() + struct.pack("<IB", 1 << 20, 0x10))
    slow_bytes = hello() + b"".join(query(i + 1, term(a.word), a.last_tablet) for i in range(a.slow_queries))
    open_some(a.slow, slow_bytes, rcvbuf=4096)
    heavy_root = and_of([f"{a.word}{i}" for i in range(4094)] + [a.word])
    heavy = []
    for _ in range(a.heavy):
        try:
            s = connect(a.port)
            send_all(s, hello())
            heavy.append(s)
        except OSError:
            refused += 1
    rid = 1
    end = time.time() + a.hold
    last_report = 0
    while time.time() < end:
        for s in heavy:  # keep a batch of heavy queries in flight on each
            try:
                send_all(s, b"".join(query(rid + i, heavy_root, a.last_tablet) for i in range(a.heavy_queries)))
            except OSError:
                pass
            rid += a.heavy_queries
        poller = select.poll()  # select() cannot watch descriptors past 1,023
        for s in heavy:
            poller.register(s, select.POLLIN)
        by_fd = {s.fileno(): s for s in heavy}
        for fd, _ in poller.poll(200):
            try:
                by_fd[fd].recv(1 << 20)
            except OSError:
                pass
        if time.time() - last_report > 5:
            last_report = time.time()
            alive = 0
            for s in held:
                try:
                    alive += s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
                except BlockingIOError:
                    alive += 1
                except OSError:
                    pass
            print(f"hostile: {alive} of {len(held)} held connections open, {len(heavy)} heavy, {refused} refused at connect",
                  flush=True)
    for s in held + heavy:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
