#!/usr/bin/env python3
"""SIGTERM with requests in flight against `payql serve` on loopback: does every
request the server accepted get its answer? See README.md beside this file.

    scripts/hostile/shutdown.py PAYQL_BINARY [--runs 6] [--clients 12] [--workdir DIR]

Each run starts `payql serve` (payments API, embedded PostgreSQL in WORKDIR/postgres,
the in-process sandbox as every provider), waits for its development keys, then:
  - CLIENTS threads send `createOrder` mutations back to back, each on a fresh
    connection, or with --keep-alive on one kept-alive connection per client (the
    mutation writes to PostgreSQL and calls the sandbox provider);
  - one connection sends half a request head and stops, another a head and half a body;
  - with --hammers N, N kept-alive connections ask /healthz back to back (like wrk);
after 1.5 s the server gets SIGTERM while the mutations are in flight. Each request
is classified by what the client saw: an answer (with its status), a refused
connect (the server had stopped accepting: nothing was sent), or DROPPED — sent,
then closed with no answer. Also reported: SIGTERM to exit, against --shutdown-grace.
Exits 1 if any request was dropped. Loopback only; bounded in time.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HOST = "127.0.0.1"
MUTATION = ('mutation { createOrder(input: {amount: {amount: "50000"}, provider: RAZORPAY}) '
            '{ order { id status } userErrors { code message } } }')


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def exchange(port, key, deadline, kept=None, request=None):
    """One mutation (or `request`), on `kept` (a list holding a kept-alive connection, or
    empty) or on a fresh connection: ('answered', status) | ('refused', None) | ('dropped', None)."""
    body = json.dumps({"query": MUTATION}).encode()
    head = (f"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {key}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    if request is not None:
        head, body = request, b""
    if kept:
        connection = kept.pop()
    else:
        try:
            connection = socket.create_connection((HOST, port), timeout=5)
        except OSError:
            return ("refused", None)
    with connection:
        try:
            connection.settimeout(max(1.0, deadline - time.monotonic()))
            connection.sendall(head + body)
        except OSError:
            return ("refused", None)  # reset before the request was taken: never accepted
        data = b""
        try:
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
                end = data.find(b"\r\n\r\n")
                if end >= 0:
                    match = re.search(rb"content-length:\s*(\d+)", data[:end], re.I)
                    if match and len(data) - end - 4 >= int(match.group(1)):
                        break
        except OSError:
            pass
        if not data:
            return ("dropped", None)
        if kept is not None and b"connection: close" not in data.lower():
            kept.append(connection.dup())
        status = data.split(b" ", 2)[1].decode()
        # A created order, or a GraphQL error (e.g. the database going away), or another status.
        if status == "200":
            status = "200 order" if b'"order":{"id"' in data else "200 errors"
        return ("answered", status)


HEALTH = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


def run_once(binary, workdir, clients, grace, number, keep_alive, hammers):
    port = free_port()
    keys_dir = os.path.join(workdir, "keys")
    os.makedirs(keys_dir, exist_ok=True)
    log = open(os.path.join(workdir, f"serve-{number}.log"), "w")
    server = subprocess.Popen(
        [binary, "serve", "--port", str(port), "--data-dir", os.path.join(workdir, "postgres"),
         "--dev-keys-dir", keys_dir, "--shutdown-grace", str(grace), "--log-level", "warning"],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        key_file = os.path.join(keys_dir, "dev-keys")
        deadline = time.monotonic() + 90
        key = None
        while key is None:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"run {number}: the server did not start (see {log.name})")
            if os.path.exists(key_file):
                for line in open(key_file):
                    if line.startswith("PAYQL_SECRET_KEY="):
                        key = line.strip().split("=", 1)[1]
            time.sleep(0.1)
        while exchange(port, key, time.monotonic() + 5)[0] != "answered":
            if time.monotonic() > deadline:
                raise SystemExit(f"run {number}: no answer from the server")
            time.sleep(0.1)
        results, lock, stop = [], threading.Lock(), threading.Event()

        def client():
            kept = [] if keep_alive else None
            while not stop.is_set():
                sent_at = time.monotonic()
                outcome = exchange(port, key, sent_at + grace + 10, kept)
                with lock:
                    results.append((sent_at, outcome))
                if outcome[0] == "refused":
                    return

        hammered, hammer_lock = {"answered": 0, "dropped": 0}, threading.Lock()

        def hammer():
            # A kept-alive connection asking /healthz as fast as it is answered (like wrk).
            kept = []
            while not stop.is_set():
                outcome = exchange(port, key, time.monotonic() + grace + 10, kept, HEALTH)
                if outcome[0] == "refused":
                    return
                with hammer_lock:
                    hammered[outcome[0]] += 1

        stalled = []
        for head in (b"POST /graphql HTTP/1.1\r\nHost: x\r\n",
                     b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"q"):
            connection = socket.create_connection((HOST, port), timeout=5)
            connection.sendall(head)
            stalled.append(connection)
        threads = [threading.Thread(target=client) for _ in range(clients)]
        threads += [threading.Thread(target=hammer) for _ in range(hammers)]
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        terminated = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=grace + 30)
        exited = time.monotonic() - terminated
        stop.set()
        for thread in threads:
            thread.join(timeout=grace + 30)
        for connection in stalled:
            connection.close()
        answered = [o for _, o in results if o[0] == "answered"]
        statuses = {}
        for _, status in answered:
            statuses[status] = statuses.get(status, 0) + 1
        in_flight = sum(1 for sent_at, o in results if sent_at <= terminated and o[0] != "refused")
        dropped = sum(1 for _, o in results if o[0] == "dropped") + hammered["dropped"]
        refused = sum(1 for _, o in results if o[0] == "refused")
        print(f"run {number}: {len(results)} mutations, {in_flight} sent before SIGTERM; answered {len(answered)} "
              f"{dict(sorted(statuses.items()))}, refused at connect {refused}; "
              f"/healthz hammered {hammered['answered']} answered; DROPPED {dropped}; "
              f"exit {server.returncode} {exited:.2f} s after SIGTERM (grace {grace} s)", flush=True)
        return dropped, len(answered), exited
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--grace", type=int, default=10)
    parser.add_argument("--keep-alive", action="store_true",
                        help="clients reuse their connection (HTTP keep-alive) instead of one per mutation")
    parser.add_argument("--hammers", type=int, default=0,
                        help="kept-alive connections asking /healthz back to back meanwhile (like wrk)")
    parser.add_argument("--workdir", help="where the embedded cluster and keys live (default: a temporary directory)")
    arguments = parser.parse_args()
    workdir = arguments.workdir or tempfile.mkdtemp(prefix="payql-shutdown-")
    os.makedirs(workdir, exist_ok=True)
    os.chmod(workdir, 0o755)  # the embedded cluster may run as the postgres user
    total_dropped, total_answered, slowest = 0, 0, 0.0
    for number in range(1, arguments.runs + 1):
        dropped, answered, exited = run_once(arguments.binary, workdir, arguments.clients, arguments.grace, number,
                                            arguments.keep_alive, arguments.hammers)
        total_dropped += dropped
        total_answered += answered
        slowest = max(slowest, exited)
    print(f"{arguments.runs} runs: {total_answered} answered, {total_dropped} dropped; "
          f"slowest exit {slowest:.2f} s after SIGTERM")
    sys.exit(1 if total_dropped else 0)


if __name__ == "__main__":
    main()
