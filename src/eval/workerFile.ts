/**
 * Where the evaluation worker (./worker.ts) is, for the thread pools that run units (the runner's and the
 * queue worker's). This module sits next to it both in the tsc build (dist/src/eval/) and in the CLI
 * bundle (dist/cli/, where every chunk and entry shares one folder), so one relative URL serves both.
 */
export const EVAL_WORKER_URL: string = new URL("./worker.js", import.meta.url).href;
