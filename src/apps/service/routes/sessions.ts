/** Capture sessions (the simulator protocol) and the bundles they make (SessionService). */
import { resourcePlugin } from "./plugin.js";

export const sessionRoutes = resourcePlugin("sessions", {
  open: (req, reply, { sessions }) => {
    reply.code(201);
    return sessions.open(req.body);
  },
  get: (req, _reply, { sessions }) => sessions.get(req.params.id),
  delete: (req, reply, { sessions }) => {
    sessions.delete(req.params.id);
    return reply.code(204).send();
  },
  putView: (req, reply, { sessions }) => {
    const r = sessions.putView(req.params.id, req.params.n, req.body);
    reply.code(r.created ? 201 : 200);
    return r.response;
  },
  finish: async (req, reply, { sessions }) => {
    const r = await sessions.finish(req.params.id, req.body);
    reply.code(r.created ? 201 : 200);
    return r.response;
  },
  action: (req, _reply, { sessions }) => {
    // a long poll: a client that hangs up stops waiting
    const gone = new AbortController();
    req.raw.once("close", () => gone.abort());
    return sessions.action(req.params.id, req.query, gone.signal);
  },
  item: (req, _reply, { sessions }) => sessions.item(req.params.id),
  bundle: (req, _reply, { sessions }) => sessions.bundle(req.params.id),
});
