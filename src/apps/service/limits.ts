/**
 * Every limit, timeout and concurrency bound of `esi3d serve`, named once with the reason for its value.
 * docs/protocol.md ("Limits") lists the ones a client can run into.
 */
import { availableParallelism } from "node:os";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8080;
/** Where finished bundles, graphs, runs and open sessions live, relative to the working directory. */
export const DEFAULT_DATA_DIR = "esi3d-data";

/**
 * JSON request bodies (task records, graph/answer/run requests). A task record with a few dozen objects is
 * under 100 KiB; 4 MiB leaves room for large scenes and rejects anything that is clearly not a request.
 */
export const JSON_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Longest path segment the router matches (fastify's default is 100). Ids are at most 128 characters; a
 * longer segment still reaches the handler, whose id check answers 400 invalid_id naming the field, instead
 * of fastify's own 414. Node refuses request lines beyond its 16 KiB header limit first (431).
 */
export const MAX_PARAM_CHARS = 16 * 1024;

/** Top-level keys of a JSON request body: the widest request (POST /v1/runs) has 23. */
export const MAX_BODY_KEYS = 64;

/** Largest image a session may declare: 2048 x 2048 (ESI-Bench renders 518 x 392; VGGT eats 518 wide). */
export const MAX_IMAGE_PIXELS = 2048 * 2048;

/** The JSON camera header inside a view upload: a few hundred bytes in practice. */
export const MAX_VIEW_HEADER_BYTES = 64 * 1024;

/**
 * One view upload (binary layout, docs/protocol.md). Worst case at MAX_IMAGE_PIXELS: depth 16 MiB, an
 * uncompressible RGB PNG ~12 MiB and 16-bit id PNG ~8 MiB, ~37 MiB in all; 64 MiB leaves headroom.
 */
export const VIEW_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Views per session: ESI-Bench's budget is 30 actions, so at most 31 views; twice that for other simulators. */
export const MAX_VIEWS_PER_SESSION = 64;

/** Bytes one session may hold on disk before it is finished (64 views of a 518 x 392 bundle take ~100 MiB). */
export const MAX_SESSION_BYTES = 1024 * 1024 * 1024;

/** Open (unfinished) sessions at once: bounds the disk that abandoned captures can take. */
export const MAX_OPEN_SESSIONS = 16;

/** An open session that receives nothing for this long is deleted (a capture takes seconds to minutes). */
export const SESSION_TTL_MS = 60 * 60 * 1000;

/**
 * Active sessions: how long the episode waits for the view it needs before it fails. OmniGibson renders a
 * view in well under a second on a GPU (plus its 4 render passes); five minutes covers a simulator that
 * re-loads a scene, and still ends an episode whose simulator is gone. A session may ask for 1 s to 1 h.
 */
export const DEFAULT_VIEW_TIMEOUT_S = 300;
export const MIN_VIEW_TIMEOUT_S = 1;
export const MAX_VIEW_TIMEOUT_S = 3600;

/**
 * GET .../action long-polls this long by default, and at most the maximum: below the 30-60 s idle limits
 * common in proxies and load balancers, and well below REQUEST_RECEIVE_TIMEOUT_MS.
 */
export const DEFAULT_ACTION_WAIT_S = 20;
export const MAX_ACTION_WAIT_S = 30;

/**
 * Active episodes running at once. Each holds its views decoded in memory (a 1280 x 720 view takes 8 MiB,
 * 31 views 260 MiB) and updates its graph on the server's main thread.
 */
export const MAX_ACTIVE_EPISODES = 4;

/** How often expired sessions are swept. */
export const SESSION_SWEEP_INTERVAL_MS = 60 * 1000;

/**
 * CPU jobs (graph building, bundle finishing, offline answers) running at once, each in its own worker
 * thread. One core stays free for the event loop (HTTP, /healthz) and the operating system.
 */
export const DEFAULT_CPU_JOBS = Math.max(1, availableParallelism() - 1);

/**
 * CPU jobs waiting for a worker. Beyond running + waiting the server answers 503 with Retry-After at
 * once instead of holding requests it cannot serve soon (a graph takes ~1-3 s here).
 */
export const DEFAULT_CPU_QUEUE = 16;

/**
 * Longest a CPU job may run before the request fails with 504 and the worker is cancelled. VGGT on a CPU
 * can take minutes for 30 views; the ground-truth and noisy sources take seconds.
 */
export const CPU_JOB_TIMEOUT_MS = 10 * 60 * 1000;

/** Model calls (LLM reasoners) in flight at once, the same default as the LLM client's connection limit. */
export const LLM_MAX_IN_FLIGHT = 8;
/** Model calls waiting for a slot before the server answers 503. */
export const LLM_QUEUE = 32;
/** Default per-attempt timeout of a model call made for POST /v1/answers (a client may lower it). */
export const LLM_DEFAULT_TIMEOUT_MS = 120_000;

/** Retry-After bounds (s) for a 503: at least 1 s; never more than a minute, so clients re-check. */
export const MIN_RETRY_AFTER_S = 1;
export const MAX_RETRY_AFTER_S = 60;

/**
 * Evaluation runs at once. A run is itself a pool of worker threads (its `concurrency`); two at once would
 * only share the same cores more slowly.
 */
export const MAX_ACTIVE_RUNS = 1;

/**
 * Tasks one run may plan (per request): five times the built-in suite (190 tasks). A run of perSubcategory
 * 10000 (190,000 tasks) held the only run slot indefinitely.
 */
export const MAX_RUN_TASKS = 1000;

/**
 * Items one run may plan (tasks x paradigms x arms): a default run is 3,420; an ablation of many noise levels
 * multiplies its arms. About six default runs, hours on this service's cores.
 */
export const MAX_RUN_ITEMS = 20_000;

/** How long DELETE /v1/runs/:id waits for the run to stop before answering (its items in flight finish first). */
export const CANCEL_WAIT_MS = 5_000;

/** Worker threads one run may ask for: the machine's cores (more only adds contention). */
export const MAX_RUN_THREADS = Math.max(1, availableParallelism());

/** GET /v1/runs/:id/items page size: default and maximum (a record is ~1-2 KiB). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/**
 * Time allowed to receive a whole request (Node's http `requestTimeout`): a 64 MiB view over a slow
 * 1 MB/s link takes ~64 s; 2 minutes leaves room, and a stalled upload cannot hold a socket forever.
 */
export const REQUEST_RECEIVE_TIMEOUT_MS = 120_000;

/** Idle keep-alive connections are closed after this (load balancers commonly use 60 s; stay above). */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** Graph summaries kept in memory for the cache-hit path of POST /v1/graphs. */
export const GRAPH_CACHE_ENTRIES = 256;

/** On SIGTERM/SIGINT: how long runs may take to finish their items in flight before the process exits. */
export const SHUTDOWN_GRACE_MS = 20_000;

/**
 * On SIGTERM/SIGINT the process exits within this, whatever is still running: the grace for runs, then a few
 * seconds to close connections and worker pools. Runs still going are recorded as interrupted (resume completes
 * them); a SIGTERM during a large run did not stop the server within 100 s.
 */
export const SHUTDOWN_LIMIT_MS = SHUTDOWN_GRACE_MS + 5_000;

/** Worker threads with nothing to do exit after this (a new job starts one again in ~100 ms). */
export const WORKER_IDLE_MS = 60_000;
