-- wrk script: POST `order(id)` with its customer and payments, cycling through the ids in
-- $WRK_IDS_FILE (one global id a line), with `Authorization: Bearer $WRK_KEY`. $WRK_QUERY, when set,
-- replaces the query (cpu.sh: other shapes; it must take `$id: ID!` and hold no double quote).
local ids = {}
for line in io.lines(os.getenv("WRK_IDS_FILE")) do ids[#ids + 1] = line end
local query = os.getenv("WRK_QUERY")
if query == nil or query == "" then query = "query Order($id: ID!) { order(id: $id) { id receipt status provider amount { amount currency decimal } amountPaid { amount } createdAt customer { id name email phone } payments { id providerPaymentId status amount { amount } verified } } }" end
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("WRK_KEY")

request = function()
  counter = counter + 1
  local id = ids[(counter % #ids) + 1]
  return wrk.format(nil, nil, nil, '{"query":"' .. query .. '","variables":{"id":"' .. id .. '"}}')
end

done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT rps=%.0f p50_ms=%.3f p99_ms=%.3f requests=%d errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, errors, summary.errors.status))
end
