/**
 * The service's state and its per-resource services, opened once per server: the data store (locked,
 * swept), the shared context (metrics, CPU pool), and one service per resource. The route plugins get
 * this object; nothing here knows about HTTP routing.
 */
import { AnswerService } from "./answers.js";
import { ServerContext } from "./context.js";
import { GraphService } from "./graphs.js";
import { Metrics } from "./metrics.js";
import { RunService } from "./runs.js";
import { SessionService } from "./sessions.js";
import { DataStore } from "./store.js";
import { TaskService } from "./tasks.js";

export interface Services {
  store: DataStore;
  ctx: ServerContext;
  metrics: Metrics;
  tasks: TaskService;
  sessions: SessionService;
  graphs: GraphService;
  answers: AnswerService;
  runs: RunService;
  startedAt: number;
}

export interface ServicesOptions {
  dataDir: string;
  cpuJobs: number;
  cpuQueue: number;
  log: (line: string) => void;
}

/** Opens the data directory (lock, leftovers swept), marks runs a previous server left as interrupted, sweeps expired sessions. */
export function openServices(o: ServicesOptions): Services {
  const store = new DataStore(o.dataDir);
  store.open();
  const metrics = new Metrics();
  const ctx = new ServerContext(store, metrics, o.cpuJobs, o.cpuQueue);
  const graphs = new GraphService(ctx);
  const s: Services = {
    store,
    ctx,
    metrics,
    tasks: new TaskService(store),
    sessions: new SessionService(store, ctx),
    graphs,
    answers: new AnswerService(ctx, graphs),
    runs: new RunService(ctx),
    startedAt: Date.now(),
  };
  const recovered = s.runs.recover();
  if (recovered) o.log(`${recovered} run(s) left running by a previous server are now 'interrupted' (POST /v1/runs/{id}/resume)`);
  const lost = s.sessions.recover();
  if (lost) o.log(`${lost} active session(s) left running by a previous server are now 'failed' (an episode does not survive a restart)`);
  s.sessions.sweep();
  return s;
}

/** Stops the worker pool and the caches and gives the data directory back (after the runs stopped: RunService.stopAll). */
export async function closeServices(s: Services): Promise<void> {
  await s.sessions.episodes.stopAll();
  await s.ctx.close();
  s.answers.close();
  s.metrics.close();
  s.store.unlock();
}
