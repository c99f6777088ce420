/** The rate-limit windows in Redis (src/llm/gate.ts WindowStore): one state for every worker of a queue. */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { WindowStore } from "../../llm/gate.js";

/**
 * The sliding log in one atomic step, on Redis's clock (TIME), so workers on machines whose clocks differ
 * share one log: drop starts older than the window, admit if fewer than the limit remain, else say how
 * long until the oldest leaves. Each start is its own member (a random id), so two in one microsecond both count.
 */
const ADMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local win = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], win * 2)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, math.ceil(tonumber(oldest[2]) + win - now))
`;

export function redisWindowStore(redis: Redis): WindowStore {
  return {
    admit: async (key, limit, windowMs) => Number(await redis.eval(ADMIT_SCRIPT, 1, key, windowMs, limit, randomUUID())),
    add: async (key, by, ttlMs) => {
      const [[, value]] = (await redis.multi().incrby(key, by).pexpire(key, ttlMs, "NX").exec()) as [[Error | null, number]];
      return value;
    },
    get: async (key) => Number((await redis.get(key)) ?? 0),
    // ZADD GT keeps the later deadline when two workers are told to wait at once
    pauseUntil: async (key, until) => {
      await redis.zadd(key, "GT", until, "until");
      await redis.pexpireat(key, Math.ceil(until) + 1000);
    },
    pausedUntil: async (key) => Number((await redis.zscore(key, "until")) ?? 0),
  };
}
