-- wrk script: POST the body in $WRK_BODY_FILE to /graphql as application/json.
local file = assert(io.open(os.getenv("WRK_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"

done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT rps=%.0f p50_ms=%.3f p99_ms=%.3f requests=%d errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, errors, summary.errors.status))
end
