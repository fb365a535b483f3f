"""The reference client of Benchmarks/httpclient: aiohttp (PyPI) on asyncio.

N tasks share one ClientSession (connection pool limited to N) and send requests
back to back for S seconds after a warm-up; prints one JSON line in the same
shape as `payql-bench httpclient`. Latency is per successful 2xx request.
"""
import argparse
import asyncio
import json
import math
import resource
import time

import aiohttp


async def measure(session, args, body, seconds):
    latencies, errors = [], 0
    end = time.perf_counter() + seconds

    async def worker():
        nonlocal errors
        while time.perf_counter() < end:
            sent = time.perf_counter()
            try:
                async with session.request(args.method, args.url, data=body) as response:
                    await response.read()
                    if 200 <= response.status < 300:
                        latencies.append(time.perf_counter() - sent)
                    else:
                        errors += 1
            except aiohttp.ClientError:
                errors += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    return latencies, errors, time.perf_counter() - start


def cpu_seconds():
    """User + system CPU time of this process (independent of how busy the machine is)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:18080/")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--method", default="GET")
    parser.add_argument("--body-bytes", type=int, default=0)
    args = parser.parse_args()
    body = b"x" * args.body_bytes if args.body_bytes > 0 else None
    connector = aiohttp.TCPConnector(limit=args.concurrency, limit_per_host=args.concurrency)
    timeout = aiohttp.ClientTimeout(total=10)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        if args.warmup > 0:
            await measure(session, args, body, args.warmup)
        cpu_before = cpu_seconds()
        latencies, errors, seconds = await measure(session, args, body, args.duration)
        cpu = cpu_seconds() - cpu_before
    latencies.sort()

    def percentile(p):
        if not latencies:
            return 0.0
        index = min(len(latencies) - 1, max(0, math.ceil(p * len(latencies)) - 1))
        return round(latencies[index] * 1000, 3)

    print(json.dumps({
        "client": "aiohttp " + aiohttp.__version__,
        "method": args.method,
        "concurrency": args.concurrency,
        "requests": len(latencies),
        "errors": errors,
        "seconds": round(seconds, 3),
        "rps": round(len(latencies) / seconds, 3),
        "p50_ms": percentile(0.50),
        "p99_ms": percentile(0.99),
        "max_ms": percentile(1.0),
        "cpu_us_per_request": round(cpu * 1e6 / len(latencies), 3) if latencies else 0,
    }, separators=(",", ":")))


if __name__ == "__main__":
    asyncio.run(main())
