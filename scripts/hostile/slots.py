#!/usr/bin/env python3
"""Slot exhaustion against `payql serve` on loopback: is /healthz answered during the
attack, and how soon after it stops? See README.md beside this file.

    scripts/hostile/slots.py PAYQL_BINARY [--seconds 15] [--head-timeout 10] [--old-server]

Runs `payql serve --workload ../shared/bench/graphql` (no database) twice:
  1. slowloris: --max-connections 150, 200 connections that each trickle one header
     byte a second and reconnect when closed;
  2. idle flood: default --max-connections 4096, 5,000 connections that send nothing
     and reconnect when closed.
During each attack a health check runs every 0.25 s (2 s timeout, a fresh connection
each time); then the attack stops, leaving its sockets open and silent (an attacker
that goes away without closing), and health checks go on until 3 in a row succeed.
Loopback only; every loop is bounded in time; the server is stopped at the end.
"""
import argparse
import os
import selectors
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def health(port, timeout=2.0):
    """Seconds a GET /healthz took, or None if it failed or timed out."""
    start = time.monotonic()
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as connection:
            connection.settimeout(max(0.05, timeout - (time.monotonic() - start)))
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while b"\r\n" not in data:
                chunk = connection.recv(4096)
                if not chunk:
                    return None
                data += chunk
            if b" 200 " not in data.split(b"\r\n")[0]:
                return None
    except OSError:
        return None
    return time.monotonic() - start


class Attack:
    """Holds `count` connections open; `trickle` sends one header byte per second on each."""

    def __init__(self, port, count, trickle):
        self.port, self.count, self.trickle = port, count, trickle
        self.stop = threading.Event()
        self.reconnects = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open_one(self, selector, now):
        connection = socket.socket()
        connection.setblocking(False)
        try:
            connection.connect_ex((HOST, self.port))
        except OSError:
            connection.close()
            return
        # state: next byte time, bytes sent
        selector.register(connection, selectors.EVENT_READ, [now + 1.0, 0])

    def run(self):
        selector = selectors.DefaultSelector()
        now = time.monotonic()
        for _ in range(self.count):
            self.open_one(selector, now)
        head = b"GET / HTTP/1.1\r\nHost: x\r\nX-a: " + b"a" * 100000
        while not self.stop.is_set():
            now = time.monotonic()
            for key, _ in selector.select(timeout=0.05):
                # Readable: the server closed it (or answered): open another.
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(key.fileobj)
                    key.fileobj.close()
                    self.reconnects += 1
                    self.open_one(selector, now)
            if self.trickle:
                for key in list(selector.get_map().values()):
                    state = key.data
                    if now >= state[0]:
                        try:
                            key.fileobj.send(head[state[1]:state[1] + 1])
                            state[1] += 1
                        except OSError:
                            pass
                        state[0] = now + 1.0
            # Keep the count up (connects that failed at once).
            missing = self.count - len(selector.get_map())
            for _ in range(max(0, missing)):
                self.open_one(selector, now)
        # Stopped: the sockets are left open and silent (an attacker that goes away
        # without closing), until `close`.
        self.left_open = [key.fileobj for key in selector.get_map().values()]
        selector.close()

    def start(self):
        self.thread.start()

    def end(self):
        self.stop.set()
        self.thread.join(timeout=30)

    def close(self):
        for connection in getattr(self, "left_open", []):
            connection.close()


def scenario(binary, workload, name, server_args, attack_count, trickle, seconds, head_timeout, old_server):
    port = free_port()
    # A binary from before --request-head-timeout (for before/after figures) gets no such flag.
    head_flag = [] if old_server else ["--request-head-timeout", str(head_timeout)]
    server = subprocess.Popen(
        [binary, "serve", "--workload", workload, "--port", str(port), "--log-level", "off"] + head_flag + server_args,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while health(port, 0.5) is None:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"{name}: the server did not start")
            time.sleep(0.1)
        attack = Attack(port, attack_count, trickle)
        attack.start()
        time.sleep(2.0)  # let the attack fill the slots
        during = []
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            during.append(health(port))
            time.sleep(0.25)
        attack.end()  # the attacker's sockets stay open, silent
        stopped = time.monotonic()
        streak, recovered = 0, None
        while time.monotonic() - stopped < head_timeout + 20:
            if health(port) is not None:
                streak += 1
                if recovered is None:
                    recovered = time.monotonic() - stopped
                if streak == 3:
                    break
            else:
                streak, recovered = 0, None
            time.sleep(0.1)
        attack.close()
        answered = [d for d in during if d is not None]
        slowest = max(answered) if answered else float("nan")
        answered.sort()
        median = answered[len(answered) // 2] if answered else float("nan")
        print(f"{name}: {len(answered)}/{len(during)} health checks answered during {seconds:.0f} s of attack "
              f"(median {median * 1000:.1f} ms, slowest {slowest * 1000:.0f} ms); "
              f"attacker reconnected {attack.reconnects} times; "
              f"after it stopped: answered again after "
              f"{'never' if recovered is None else f'{recovered:.2f} s'} (head deadline {head_timeout} s)")
        return recovered is not None and recovered <= head_timeout
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--head-timeout", type=int, default=10)
    parser.add_argument("--old-server", action="store_true",
                        help="the binary predates --request-head-timeout: do not pass it (the verdict still uses --head-timeout)")
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--workload", default=os.path.join(root, "..", "shared", "bench", "graphql"),
                        help="the benchmark workload directory (default: ../shared/bench/graphql beside the repository)")
    arguments = parser.parse_args()
    workload = os.path.abspath(arguments.workload)
    if not os.path.isdir(workload):
        raise SystemExit(f"no workload at {workload}: pass --workload DIR")
    ok = scenario(arguments.binary, workload, "slowloris 200 @ --max-connections 150", ["--max-connections", "150"],
                  200, True, arguments.seconds, arguments.head_timeout, arguments.old_server)
    ok &= scenario(arguments.binary, workload, "idle flood 5000 @ --max-connections 4096", [],
                   5000, False, arguments.seconds, arguments.head_timeout, arguments.old_server)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
