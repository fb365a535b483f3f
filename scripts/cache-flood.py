#!/usr/bin/env python3
"""Floods `payql serve` (loopback only) with large unique documents and reports its RSS.

The attack of issue 14: unique ~1 MB documents sent with a matching APQ
`sha256Hash` (garbage that does not parse, then valid documents padded with a
comment), each one new to the document cache and to the persisted-query store.
Before the caches were bounded by bytes, 3,000 garbage documents took the
server to 3.17 GB. The script starts its own server on a free loopback port,
sends a bounded number of requests from a few threads, samples VmRSS from
/proc, reads the cache gauges from /metrics, stops the server and prints one
JSON line per phase plus a summary. It never targets anything but 127.0.0.1.

The server serves the shared benchmark workload (`--workload`, default
../shared/bench/graphql beside the repository: no database needed); the caches
under attack are the same whatever the schema, and the valid documents are
`{ __typename }` padded with a comment.

usage: scripts/cache-flood.py --payql .build/release/payql [--workload DIR] [--garbage 3000] [--valid 1000]
                              [--size 1000000] [--threads 4] [--deadline 300] [-- EXTRA SERVE FLAGS]
"""
import argparse
import hashlib
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def metrics(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    wanted = {}
    for line in text.splitlines():
        if line.startswith(("payql_graphql_document_cache_", "payql_graphql_persisted_queries_")):
            name, value = line.rsplit(" ", 1)
            wanted[name] = float(value)
    return wanted


def document(kind, index, size):
    tag = f"{kind}-{index:07d}"
    if kind == "garbage":
        # Unique, never parses: a brace that is never closed, then filler.
        head = "{ hello " + tag + " ((("
    else:
        # Unique and valid: a query followed by a comment of filler.
        head = "{ __typename }\n# " + tag + " "
    return head + "x" * max(0, size - len(head))


def flood(port, kind, count, size, threads, deadline, pid, samples):
    counter = iter(range(count))
    lock = threading.Lock()
    statuses = {}

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.monotonic() < deadline:
            with lock:
                index = next(counter, None)
            if index is None:
                break
            text = document(kind, index, size)
            body = json.dumps({"query": text, "extensions": {"persistedQuery": {
                "version": 1, "sha256Hash": hashlib.sha256(text.encode()).hexdigest()}}})
            try:
                conn.request("POST", "/graphql", body=body, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    while any(thread.is_alive() for thread in pool):
        samples.append(rss_kib(pid))
        time.sleep(0.2)
    for thread in pool:
        thread.join()
    return statuses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--payql", required=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--workload", default=os.path.join(os.path.dirname(root), "shared", "bench", "graphql"))
    parser.add_argument("--garbage", type=int, default=3000)
    parser.add_argument("--valid", type=int, default=1000)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--deadline", type=float, default=300, help="seconds for the whole run")
    parser.add_argument("extra", nargs="*", help="more `payql serve` flags (after --)")
    args = parser.parse_args()

    port = free_port()
    if not os.path.isfile(os.path.join(args.workload, "schema.graphql")):
        print(f"cache-flood: no benchmark workload at {args.workload} (give --workload DIR)", file=sys.stderr)
        return 2
    command = [args.payql, "serve", "--workload", args.workload, "--host", "127.0.0.1", "--port", str(port),
               "--log-level", "off"] + args.extra
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + args.deadline
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        baseline = rss_kib(server.pid)
        report = {"command": " ".join(command), "baseline_rss_mib": round(baseline / 1024, 1)}
        print(json.dumps(report), flush=True)
        peak = baseline
        for kind, count in (("garbage", args.garbage), ("valid", args.valid)):
            samples = []
            started = time.monotonic()
            statuses = flood(port, kind, count, args.size, args.threads, deadline, server.pid, samples)
            seconds = time.monotonic() - started
            samples.append(rss_kib(server.pid))
            peak = max([peak] + samples)
            phase = {"phase": kind, "documents": sum(statuses.values()), "bytes_each": args.size,
                     "statuses": {str(k): v for k, v in statuses.items()}, "seconds": round(seconds, 1),
                     "rss_end_mib": round(samples[-1] / 1024, 1), "rss_peak_mib": round(max(samples) / 1024, 1),
                     "alive": server.poll() is None, "metrics": metrics(port)}
            print(json.dumps(phase), flush=True)
        summary = {"baseline_rss_mib": round(baseline / 1024, 1), "peak_rss_mib": round(peak / 1024, 1),
                   "growth_mib": round((peak - baseline) / 1024, 1), "alive": server.poll() is None}
        print(json.dumps(summary), flush=True)
        return 0 if server.poll() is None else 1
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
