/**
 * Debian's redis-server for the queue tests: started on 127.0.0.1 and a free port, nothing saved to disk
 * (--save '' --appendonly no), with the policy a queue needs (noeviction), and stopped after.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";

import { REDIS_SERVER } from "./system.js";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  url: string;
  port: number;
  client: Redis;
  stop(): Promise<void>;
}

/**
 * `port`: this port instead of a free one (a restart on the same address); `dir`: keep the data in this folder
 * (dump.rdb), written by `SHUTDOWN SAVE` and loaded by the next server started with the same folder.
 */
export async function startRedis(extra: string[] = ["--maxmemory-policy", "noeviction"], where: { port?: number; dir?: string } = {}): Promise<TestRedis> {
  const port = where.port ?? (await freePort());
  const disk = where.dir ? ["--dir", where.dir, "--dbfilename", "dump.rdb"] : [];
  const proc: ChildProcess = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...disk, ...extra], {
    stdio: "ignore",
  });
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (e) {
      if (i > 50) throw e;
      client.disconnect();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    stop: async () => {
      client.disconnect();
      // a server that already exited (crashed) has fired "exit": waiting for it again would never end
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
    },
  };
}
