/**
 * Stored task records (PUT/GET /v1/tasks/{id}): a task a session (`task_id`) or a run (suite "tasks") can
 * then name. The id in the path is checked as a safe path segment and must equal the record's task_id.
 */
import { existsSync } from "node:fs";
import { TaskSchema, type Task } from "../../../core/task/schema.js";
import { fromZod, HttpError, notFound } from "./errors.js";
import { checkTaskId } from "./ids.js";
import type { DataStore } from "./store.js";

export class TaskService {
  constructor(private readonly store: DataStore) {}

  private file(id: string): string {
    return this.store.path("tasks", `${id}.json`);
  }

  /** Stores the record; returns whether it is new. */
  put(idText: string, body: unknown): { created: boolean; response: { task_id: string; created: boolean } } {
    const id = checkTaskId(idText, "params.id");
    const parsed = TaskSchema.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error, "body");
    if (parsed.data.task_id !== id)
      throw new HttpError(400, "invalid_request", `body.task_id: "${parsed.data.task_id}" differs from the id in the path ("${id}")`, "body.task_id");
    const created = !existsSync(this.file(id));
    this.store.writeJson(this.file(id), parsed.data);
    return { created, response: { task_id: id, created } };
  }

  get(idText: string): Task {
    const id = checkTaskId(idText, "params.id");
    const t = this.store.readJson(this.file(id), TaskSchema, "task");
    if (!t) throw notFound("task", id);
    return t;
  }
}
