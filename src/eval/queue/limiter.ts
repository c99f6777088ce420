/** The rate-limit windows in Redis (src/llm/gate.ts WindowStore): one state for every worker of a queue. */
import type { Redis } from "ioredis";
import type { WindowStore } from "../../llm/gate.js";

export function redisWindowStore(redis: Redis): WindowStore {
  return {
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
