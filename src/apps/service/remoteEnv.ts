/**
 * An active environment served by an external simulator (bridge/env/types.ts): the episode loop's
 * reset() and step() wait for views someone else delivers, and each step publishes the action the
 * simulator must apply next. It knows no transport: the service (src/apps/service/episodes.ts) feeds it
 * the views uploaded over HTTP and answers the simulator's action requests from it.
 *
 * Views are numbered as the episode sees them: view 0 is the initial one, view n+1 the one after the
 * action published after view n. A simulator that does not deliver the view the loop waits for within
 * `viewTimeoutMs` fails the episode (the loop's step() rejects), so a simulator that disappears ends the
 * episode with an error instead of holding it forever.
 *
 * The simulator may report the objects an action moved with the view that shows the result (the view
 * header's `moved`): truth() then says where the task's objects are now, as the built-in environment's does,
 * so the episode's diagnosis judges the graph against them instead of against the task's start.
 */
import type { BundleManifest } from "../../../core/bundle/schema.js";
import { actionText } from "../../../core/task/actions.js";
import type { EnvAction, Environment, EnvView, ObjectRef, WorldTruth } from "../../../bridge/env/types.js";
import { worldTruth } from "../../../bridge/sim/manipulation/hands.js";
import type { TaskObject } from "../../../core/task/schema.js";

/** An object the simulator reports moved by an action, where it is now (orientation absent: unchanged). */
export type ReportedMove = { id: number } & Pick<TaskObject, "position"> & Partial<Pick<TaskObject, "orientation">>;

export class RemoteEnvironmentError extends Error {}

export class RemoteEnvironment implements Environment {
  /** actions[n]: the action published after view n. */
  private readonly actions: EnvAction[] = [];
  /** Views delivered and not yet taken by the loop (at most one: the loop waits for each in turn). */
  private readonly inbox = new Map<number, EnvView>();
  private received = 0;
  private waiter: { n: number; resolve: (v: EnvView) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | null = null;
  private failure: Error | null = null;
  private closed = false;
  private readonly listeners = new Set<() => void>();
  /** The task's objects where the simulator last reported them (the task's start until it reports a move). */
  private readonly objects: TaskObject[];

  constructor(
    readonly manifest: Omit<BundleManifest, "views">,
    private readonly viewTimeoutMs: number,
  ) {
    this.objects = (manifest.task?.objects ?? []).map((o) => ({ ...o }));
  }

  /** Views delivered so far (the index the next delivery must have). */
  get viewsReceived(): number {
    return this.received;
  }

  /** The action published after view n, as canonical text, or null when it is not decided yet. */
  actionAfter(n: number): string | null {
    const a = this.actions[n];
    return a ? envActionText(a) : null;
  }

  /** The objects a manipulation published after view n names (none for a camera move). */
  objectsAfter(n: number): ObjectRef[] {
    const a = this.actions[n];
    return a?.kind === "hands" ? a.objects : [];
  }

  /** Whether the loop is done with the environment (no further action will be published). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Calls `f` whenever an action is published, the environment closes or fails; returns the unsubscriber. */
  subscribe(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  private changed(): void {
    for (const f of [...this.listeners]) f();
  }

  /**
   * Delivers view `v.view.index`, which must be the next one: view 0 at any time, view n+1 once the
   * action after view n is published; `moved`: the objects the action moved, where they are now (ids of
   * the task's objects). Throws RemoteEnvironmentError otherwise.
   */
  deliver(v: EnvView, moved: readonly ReportedMove[] = []): void {
    const n = v.view.index;
    if (this.failure || this.closed)
      throw new RemoteEnvironmentError(`the episode takes no more views (${this.failure ? `it failed: ${this.failure.message}` : "it has ended"})`);
    if (n !== this.received) throw new RemoteEnvironmentError(`expected view ${this.received}, got view ${n}`);
    if (n > 0 && this.actions[n - 1] === undefined)
      throw new RemoteEnvironmentError(`view ${n} follows the action after view ${n - 1}, which is not decided yet (ask for it first)`);
    const unknown = moved.find((m) => !this.objects.some((o) => o.id === m.id));
    if (unknown) throw new RemoteEnvironmentError(`moved: ${unknown.id} is no object of the task`);
    for (const m of moved) {
      const k = this.objects.findIndex((o) => o.id === m.id);
      this.objects[k] = { ...this.objects[k]!, position: [...m.position], ...(m.orientation ? { orientation: { ...m.orientation } } : {}) };
    }
    this.received++;
    if (this.waiter && this.waiter.n === n) {
      const w = this.waiter;
      this.waiter = null;
      clearTimeout(w.timer);
      w.resolve(v);
    } else this.inbox.set(n, v);
  }

  /** Ends the episode with `error`: a waiting reset()/step() rejects with it; later ones too. */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.changed();
  }

  private await(n: number): Promise<EnvView> {
    if (this.failure) return Promise.reject(this.failure);
    const ready = this.inbox.get(n);
    if (ready) {
      this.inbox.delete(n);
      return Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        this.fail(
          new RemoteEnvironmentError(
            `view ${n} did not arrive within ${this.viewTimeoutMs / 1000} s${n > 0 ? ` of the action after view ${n - 1}` : " of the session's opening"} (the simulator stopped serving the episode)`,
          ),
        );
        reject(this.failure!);
      }, this.viewTimeoutMs);
      timer.unref();
      this.waiter = { n, resolve, reject, timer };
    });
  }

  async reset(): Promise<EnvView> {
    if (this.actions.length > 0) throw new RemoteEnvironmentError("a remote episode is reset once, at its start");
    return this.await(0);
  }

  async step(action: EnvAction): Promise<EnvView> {
    const n = this.actions.length;
    this.actions.push(action);
    this.changed();
    return this.await(n + 1);
  }

  /** The task's objects where the simulator last reported them, and those that moved from the task's start. */
  truth(): WorldTruth {
    return worldTruth(
      this.manifest.task?.objects ?? [],
      this.objects.map((o) => ({ ...o })),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.waiter) {
      clearTimeout(this.waiter.timer);
      this.waiter = null;
    }
    this.changed();
  }
}

/** The text a simulator is sent: `move_forward`, `put_on(n3, table)` (the objects travel beside it, with where a node is). */
function envActionText(a: EnvAction): string {
  return a.kind === "camera" ? a.name : actionText({ kind: "hands", name: a.name, objects: a.objects.map((o) => o.text) });
}
