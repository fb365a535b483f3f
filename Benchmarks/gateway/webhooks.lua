-- wrk script: POST signed Razorpay webhooks to /webhooks/razorpay, one pre-made delivery a request,
-- from $WRK_EVENTS_FILE (lines "<event id>\t<signature>\t<body>"), each sent once
-- (a thread takes every Nth line); after its share a thread sends nothing new (wrk stops at -d).
local events = {}
for line in io.lines(os.getenv("WRK_EVENTS_FILE")) do events[#events + 1] = line end
local threads = 0
setup = function(thread)
  thread:set("offset", threads)
  threads = threads + 1
  thread:set("stride", tonumber(os.getenv("WRK_THREADS")))
end
local next_index = nil
request = function()
  if next_index == nil then next_index = offset + 1 end
  local line = events[next_index]
  if line == nil then
    -- Everything sent: ask for something harmless (a 404 is not counted as ingestion).
    return wrk.format("GET", "/healthz")
  end
  next_index = next_index + stride
  local id, signature, body = line:match("^([^\t]+)\t([^\t]+)\t(.*)$")
  return wrk.format("POST", "/webhooks/razorpay", {
    ["Content-Type"] = "application/json", ["X-Razorpay-Signature"] = signature, ["x-razorpay-event-id"] = id }, body)
end
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT rps=%.0f p50_ms=%.3f p99_ms=%.3f requests=%d errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, errors, summary.errors.status))
end
