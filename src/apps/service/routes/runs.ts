/** Evaluation runs in the background (RunService). */
import { resourcePlugin } from "./plugin.js";

export const runRoutes = resourcePlugin("runs", {
  start: (req, reply, { runs }) => {
    reply.code(202);
    return runs.start(req.body);
  },
  list: (_req, _reply, { runs }) => runs.list(),
  get: (req, _reply, { runs }) => runs.get(req.params.id),
  items: (req, _reply, { runs }) => runs.items(req.params.id, req.query),
  resume: (req, reply, { runs }) => {
    reply.code(202);
    return runs.resume(req.params.id);
  },
  cancel: async (req, reply, { runs }) => {
    reply.code(202);
    return runs.cancel(req.params.id);
  },
});
