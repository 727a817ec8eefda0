"""The Redis scripts of the Run:ai call limit (`semaphore.py`): take, renew, leave the line.

Each runs atomically on the server, reads the time from Redis (`TIME`, so replicas' clocks
never matter) and touches only the holders' key and the line's two keys, which share the
holders' Redis Cluster slot (`line_keys`).
"""

from __future__ import annotations

__all__ = ["ACQUIRE", "LEAVE", "RENEW", "line_keys"]


def line_keys(key: str) -> tuple[str, str]:
    """The line's two keys for the holders' `key`: who waits (since when), and until when.

    Their hash tag is the whole holders' key: all three in one Cluster slot, as a script
    that names them needs.
    """
    return "{" + key + "}:line", "{" + key + "}:place"


#: KEYS[1] the holders; KEYS[2] the processes waiting in line for a slot (score: since
#: when); KEYS[3] when each waiting process's place lapses unless it tries again (a dead
#: process leaves the line). ARGV limit, lease (ms), this process, how long a place lasts
#: (ms), then one new token per slot wanted. Free slots go one each to the processes in
#: line, in order (one not in line counts as last), and what is left over to whoever asks;
#: a process that gets fewer than it wants stays in line, at the back if it got any.
#: Returns {slots taken (the first N tokens now hold one each), 1 if it is in line}.
#: Sent again with the same tokens (the client retries a call whose reply was lost), it
#: returns what the first run took instead of counting those slots as someone else's.
ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = 0
while held < #ARGV - 4 and redis.call('ZSCORE', KEYS[1], ARGV[held + 5]) do
  held = held + 1
end
if held > 0 then
  return {held, redis.call('ZSCORE', KEYS[2], ARGV[3]) and 1 or 0}
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, process in ipairs(gone) do
  redis.call('ZREM', KEYS[2], process)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local waiting = redis.call('ZCARD', KEYS[2])
local ahead = redis.call('ZRANK', KEYS[2], ARGV[3])
if not ahead then
  ahead = waiting
  waiting = waiting + 1
end
local wanted = #ARGV - 4
local free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
local share = math.max(0, free - waiting)
if free > ahead then
  share = share + 1
end
local taken = math.min(share, wanted)
local in_line = 0
if taken < wanted then
  if taken > 0 then
    redis.call('ZADD', KEYS[2], now, ARGV[3])
  else
    redis.call('ZADD', KEYS[2], 'NX', now, ARGV[3])
  end
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
  in_line = 1
else
  redis.call('ZREM', KEYS[2], ARGV[3])
  redis.call('ZREM', KEYS[3], ARGV[3])
end
for i = 1, taken do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i + 4])
end
if taken > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {taken, in_line}
"""

#: KEYS the line's two sets; ARGV this process. It waits no more: out of the line at once.
LEAVE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 0
"""

#: KEYS[1] the holders; ARGV lease (ms), then the tokens this process holds. Returns the
#: tokens that were no longer there: their lease ended, and their slot may be someone
#: else's by now, so they are not taken back.
RENEW = """
local t = redis.call('TIME')
local ends = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return lost
"""
