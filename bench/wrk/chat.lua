-- wrk script for the non-streaming benchmark: POST one small chat request, then write the
-- run's latency distribution to $WRK_OUT as JSON, so bench/run can merge rounds exactly.
--   WRK_KEY=sk-… WRK_MODEL=service-pro WRK_OUT=/tmp/x.json wrk -t1 -c32 -d5s -s chat.lua URL
local key = os.getenv("WRK_KEY") or ""
local model = os.getenv("WRK_MODEL") or "mock-model"

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
if key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
wrk.body = '{"model":"' .. model .. '","max_tokens":16,"messages":[{"role":"user","content":"Say hello."}]}'

function done(summary, latency, requests)
  local path = os.getenv("WRK_OUT")
  if not path then return end
  local f = assert(io.open(path, "w"))
  local e = summary.errors
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout))
  -- The latency distribution as 1,002 quantiles (0.1 % steps, then 99.95 and 99.99), in µs:
  -- rounds are merged by weighting each point with its round's request count.
  f:write('"quantiles_us":[')
  if summary.requests > 0 then
    for i = 1, 1000 do
      if i > 1 then f:write(",") end
      f:write(string.format("%d", latency:percentile(i / 10)))
    end
    f:write(string.format(",%d,%d", latency:percentile(99.95), latency:percentile(99.99)))
  end
  f:write("]}\n")
  f:close()
end
