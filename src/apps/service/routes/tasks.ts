/** PUT and GET /v1/tasks/{id}: stored task records (TaskService). */
import { resourcePlugin } from "./plugin.js";

export const taskRoutes = resourcePlugin("tasks", {
  put: (req, reply, { tasks }) => {
    const r = tasks.put(req.params.id, req.body);
    reply.code(r.created ? 201 : 200);
    return r.response;
  },
  get: (req, _reply, { tasks }) => tasks.get(req.params.id),
});
