-- GCRA for one key, atomically, on the Redis server's clock (one clock for every replica).
-- KEYS[1]: the key's theoretical arrival time (TAT), microseconds since the Unix epoch.
-- ARGV[1]: the limit, requests per minute (at least 1).
-- Returns {allowed (0/1), remaining, reset_after_us, retry_after_us}, the fields of the
-- gateway's `Decision`.

-- Redis 3.2-4 need this before a write that follows TIME; from 5 on it is the default.
if redis.replicate_commands then
  redis.replicate_commands()
end

local window = 60000000
local limit = math.max(tonumber(ARGV[1]) or 1, 1)
local interval = math.max(math.floor(window / limit), 1)
local tolerance = window - interval

local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])

local tat = tonumber(redis.call('GET', KEYS[1]) or now) or now
if tat < now then
  tat = now
end

if tat - now > tolerance then
  return {0, 0, tat - now, tat - tolerance - now}
end

local new_tat = tat + interval
local used = new_tat - now
-- %.0f: Lua's default number format would round a 16-digit timestamp. The key expires when
-- the full burst is back, which is when forgetting it changes nothing.
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.floor(used / 1000) + 1)
local remaining = math.floor((window - math.min(used, window)) / interval)
return {1, remaining, used, 0}
