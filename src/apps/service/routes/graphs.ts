/** Scene graphs: built in a worker, stored, answered from the store (GraphService). */
import { resourcePlugin } from "./plugin.js";

export const graphRoutes = resourcePlugin("graphs", {
  build: async (req, reply, { graphs }) => {
    const r = await graphs.request(req.body);
    reply.code(r.created ? 201 : 200);
    return r.response;
  },
  get: (req, _reply, { graphs }) => {
    const r = graphs.load(req.params.id);
    return { id: r.id, bundle: r.bundle, options: r.options, created_at: r.created_at, graph: r.graph };
  },
  diagnosis: (req, _reply, { graphs }) => {
    const r = graphs.load(req.params.id);
    return { id: r.id, bundle: r.bundle, diagnosis: r.diagnosis };
  },
});
