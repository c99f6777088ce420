/**
 * Where the evaluation worker (./worker.ts) is, for the thread pools that run units (the runner's and the
 * queue worker's). This module sits next to it both in the tsc build (dist/src/eval/) and in the CLI
 * bundle (dist/cli/, where every chunk and entry shares one folder), so one relative URL serves both.
 */
export const EVAL_WORKER_URL: string = new URL("./worker.js", import.meta.url).href;

/**
 * The young generation (MB) of each unit worker: 96, twice V8's default of 48 here (Node 20; setting 48
 * gave the same CPU time as setting nothing). A unit allocates many short-lived arrays and objects per view;
 * with the default, scavenges promote some of them and the old space fills with garbage that mark-compacts
 * then sweep. Measured on dad60a5's work (`esi3d run --limit 4`, one worker, 5 alternating pairs): CPU time
 * 5.61 -> 5.26 s (6 % less, lower in every pair), peak RSS 423 -> 485 MB. 192 MB gave no more.
 */
const UNIT_WORKER_YOUNG_GENERATION_MB = 96;

/** The resource limits of the thread pools that run units. */
export const EVAL_WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: UNIT_WORKER_YOUNG_GENERATION_MB } as const;
