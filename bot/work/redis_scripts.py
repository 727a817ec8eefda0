"""The Redis work queue's Lua scripts: one per step that must not be split (Redis 7.0 commands).

KEYS[1] is the stream and ARGV[1] the consumer group in each. `RECLAIM` claims (`XCLAIM` with
a minimum idle time) the entries an earlier call saw idle, then lists those idle now; `HEARTBEAT`
reports the entries whose attempts are stale (another consumer holds them, or they are gone and
their journal, KEYS[i + 1] for the i-th, says answered or names another entry); `DEAD_LETTER`
marks the journal answered too (the asker has been told); `RETIRE` counts the deliveries of each
copy it puts back in its `earlier` field. (`XACK` and `XDEL` of a stream or group Redis lost
answer 0, not an error: finishing an entry that is gone is no failure.)

Bounds: `ENQUEUE` holds people's requests and pushed items (watches, alerts) to separate bounds,
and each asker to a cap of their own. An entry carries what it is counted in as fields (`asker`,
`pushed`); the pushed count and each asker's count are keys beside the stream, raised by the
`ENQUEUE` that adds the entry and lowered by the `FINISH` or `DEAD_LETTER` whose `XDEL` removes
it (only that one: a repeated call deletes nothing and lowers nothing), so a count is released
exactly once, however many attempts, reclaims and hand-backs (`RETIRE` copies the fields) the
entry went through. People's requests are the stream's length less the pushed count. A count a
release never reached (a worker of an older version finished the entry) refuses for a minute
at most: before `ENQUEUE` refuses, it recounts the pushed items and the asker's entries from the
stream (one `XRANGE`, bounded by the bounds' sum: a longer stream is not recounted), but only
when the count that refuses has gone untouched for `RECOUNT_AFTER_S` (a recount touches it),
so a flood of refused requests scans the stream once a minute, not once each. The counts also
expire (each accepted `ENQUEUE` renews them), and an empty stream clears them.
"""

from __future__ import annotations

__all__ = [
    "DEAD_LETTER",
    "ENQUEUE",
    "FINISH",
    "FORGET",
    "HEARTBEAT",
    "RECLAIM",
    "RECOUNT_AFTER_S",
    "RETIRE",
]

#: How long a count must have gone untouched before a refusal recounts it from the stream.
RECOUNT_AFTER_S = 60

#: KEYS: the stream, the dedupe key, the pushed count, then the asker's count (if any).
#: ARGV: the group, the lane's bound, the dedupe TTL, the item, "1" if pushed, the asker's cap,
#: the asker, the TTL of the counts, the longest stream worth recounting (both bounds' sum),
#: and how long a count must have gone untouched (not raised nor recounted) to be recounted.
ENQUEUE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return {'duplicate', 0, 0} end
local depth = redis.call('XLEN', KEYS[1])
if depth == 0 then
  redis.call('DEL', KEYS[3])
  if KEYS[4] then redis.call('DEL', KEYS[4]) end
end
local function refusal()
  if KEYS[4] then
    local held = tonumber(redis.call('GET', KEYS[4]) or 0)
    if held >= tonumber(ARGV[6]) then return {'capped', held, depth} end
  end
  local pushed = math.min(tonumber(redis.call('GET', KEYS[3]) or 0), depth)
  local lane = depth - pushed
  if ARGV[5] == '1' then lane = pushed end
  if lane >= tonumber(ARGV[2]) then return {'full', 0, depth} end
  return nil
end
local function recount(key, counted)
  redis.call('SET', key, counted, 'EX', ARGV[8])
end
local function stale(key)
  if not key then return false end
  local ttl = redis.call('TTL', key)
  return ttl < 0 or ttl <= tonumber(ARGV[8]) - tonumber(ARGV[10])
end
local refused = refusal()
local suspect = KEYS[3]
if refused and refused[1] == 'capped' then suspect = KEYS[4] end
if refused and depth <= tonumber(ARGV[9]) and stale(suspect) then
  local pushed, held = 0, 0
  for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
    for j = 1, #entry[2], 2 do
      if entry[2][j] == 'pushed' and entry[2][j + 1] == '1' then pushed = pushed + 1 end
      if entry[2][j] == 'asker' and entry[2][j + 1] == ARGV[7] then held = held + 1 end
    end
  end
  recount(KEYS[3], pushed)
  if KEYS[4] then recount(KEYS[4], held) end
  refused = refusal()
end
if refused then return refused end
local fields = {'item', ARGV[4]}
if KEYS[4] then
  fields[#fields + 1] = 'asker'
  fields[#fields + 1] = ARGV[7]
end
if ARGV[5] == '1' then
  fields[#fields + 1] = 'pushed'
  fields[#fields + 1] = '1'
end
local pending = 0
local ok, summary = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1])
if ok then pending = summary[1] end
redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
local raised = {}
if ARGV[5] == '1' then raised[#raised + 1] = KEYS[3] end
if KEYS[4] then raised[#raised + 1] = KEYS[4] end
for _, count in ipairs(raised) do
  redis.call('INCR', count)
  redis.call('EXPIRE', count, ARGV[8])
end
redis.call('XADD', KEYS[1], '*', unpack(fields))
local ahead = depth - pending
if ahead < 0 then ahead = 0 end
return {'accepted', ahead, depth}
"""

RECLAIM = """
local claimed, idle = {}, {}
for i = 5, #ARGV, 2 do
  local entry = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[i + 1], ARGV[i])[1]
  if entry then
    local info = redis.call('XPENDING', KEYS[1], ARGV[1], entry[1], entry[1], 1)
    local times = 1
    if info[1] then times = info[1][4] end
    local item, earlier, asker, pushed = '', 0, '', ''
    for j = 1, #entry[2], 2 do
      if entry[2][j] == 'item' then item = entry[2][j + 1] end
      if entry[2][j] == 'earlier' then earlier = entry[2][j + 1] end
      if entry[2][j] == 'asker' then asker = entry[2][j + 1] end
      if entry[2][j] == 'pushed' then pushed = entry[2][j + 1] end
    end
    claimed[#claimed + 1] = {entry[1], item, times, earlier, asker, pushed}
  end
end
local seen = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[3], '-', '+', ARGV[4])
for _, info in ipairs(seen) do
  idle[#idle + 1] = {info[1], info[3]}
end
return {claimed, idle}
"""

HEARTBEAT = """
local stale = {}
for i = 3, #ARGV do
  local ok, info = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if ok and info[1] then
    if info[1][2] == ARGV[2] then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    else
      stale[#stale + 1] = ARGV[i]
    end
  elseif KEYS[i - 1] == KEYS[1] then
    stale[#stale + 1] = ARGV[i]
  else
    local journal = redis.call('HMGET', KEYS[i - 1], 'answered', 'entry')
    if journal[1] == '1' or (journal[2] and journal[2] ~= ARGV[i]) then
      stale[#stale + 1] = ARGV[i]
    end
  end
end
return stale
"""


def _settled(journal: str, counts: tuple[str, str], ttl: str) -> str:
    """The end of an item: journal marked answered (unless it is the stream's key), entry gone.

    `counts` (the pushed count, the asker's; the stream's key for none) are lowered only by the
    call that deletes the entry: a count is released once, when its item ends.
    """
    return f"""
if {journal} ~= KEYS[1] then
  redis.call('HSET', {journal}, 'answered', '1')
  redis.call('EXPIRE', {journal}, {ttl})
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
if redis.call('XDEL', KEYS[1], ARGV[2]) == 1 then
  for _, count in ipairs({{{", ".join(counts)}}}) do
    if count ~= KEYS[1] and redis.call('DECR', count) <= 0 then redis.call('DEL', count) end
  end
end
return 1
"""


#: KEYS: the stream, the journal, the pushed count, the asker's count (the stream's key for
#: none of these), then, when given, the item's dedupe key: its asker was told to ask again.
FINISH = "if KEYS[5] then redis.call('DEL', KEYS[5]) end" + _settled(
    "KEYS[2]", ("KEYS[3]", "KEYS[4]"), "ARGV[3]"
)

#: KEYS: the stream, the dead-letter stream, the journal, the pushed count, the asker's count.
DEAD_LETTER = (
    "redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'item', ARGV[3], 'reason', ARGV[4])"
    + _settled("KEYS[3]", ("KEYS[4]", "KEYS[5]"), "ARGV[6]")
)

RETIRE = """
local moved = 0
while true do
  local held = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 100, ARGV[2])
  if #held == 0 then break end
  for _, info in ipairs(held) do
    local entry = redis.call('XRANGE', KEYS[1], info[1], info[1])[1]
    if entry then
      local fields, earlier = {}, info[4]
      for i = 1, #entry[2], 2 do
        if entry[2][i] == 'earlier' then
          earlier = earlier + tonumber(entry[2][i + 1])
        else
          fields[#fields + 1] = entry[2][i]
          fields[#fields + 1] = entry[2][i + 1]
        end
      end
      redis.call('XADD', KEYS[1], '*', 'earlier', earlier, unpack(fields))
      moved = moved + 1
    end
    redis.call('XACK', KEYS[1], ARGV[1], info[1])
    redis.call('XDEL', KEYS[1], info[1])
  end
end
redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
return moved
"""

FORGET = """
local forgotten = 0
for _, fields in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local consumer = {}
  for i = 1, #fields, 2 do consumer[fields[i]] = fields[i + 1] end
  if consumer['pending'] == 0 and consumer['idle'] >= tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], consumer['name'])
    forgotten = forgotten + 1
  end
end
return forgotten
"""
