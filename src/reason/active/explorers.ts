/**
 * Offline active agents for the symbolic reasoners: deterministic and seeded. Each step the agent answers
 * with the symbolic program over the graph so far (symbolic-2d over the views so far, for the 2D arm) and
 * picks its next view with an explorer:
 * - `nbv`: next-best-view over a voxel occupancy grid (scenegraph/occupancy.ts): every action sequence of
 *   up to PLAN_DEPTH steps on the 0.25 m / 15 deg lattice is scored by the unknown space it would reveal,
 *   weighted towards the objects the question names, each pose's gain discounted by its path length
 *   (NBVP: gain(node) = gain(parent) + gain * exp(-lambda * length)); the first action of the best one is
 *   taken (receding horizon), ties broken by the fixed action order;
 * - `verify` (ours): as nbv, but nodes the graph itself doubts (possible_duplicate_of, fragment,
 *   low_support) attract the views, so the agent seeks the viewpoint that could falsify its graph;
 * - `random`: a seeded uniform choice among the actions not known to be blocked (the baseline).
 * The 3D agent's confidence is the program's, scaled by how much of the space around the question's
 * objects it has observed (coverage / COVERAGE_TARGET, at most 1): a program sure of a half-seen scene is
 * not sure of the scene. The 2D arm sees no depth, so it has no occupancy grid: its explorer is always
 * the seeded random walk, and its confidence is the program's (docs/active.md).
 * An explorer says `stop` when its answer has been the same for STABLE_STEPS steps with the coverage
 * target met, or when no reachable view would reveal more than MIN_GAIN of weighted unknown space.
 */
import type { Task } from "../../../core/task/schema.js";
import { intendedPose, MOVE_STEP_M, NAVIGATION_ACTIONS, REACH_M, STOP_ACTION, type NavigationAction } from "../../../core/task/actions.js";
import { intrinsicsFromHfov, type AgentPose } from "../../../core/math/camera.js";
import { Rng } from "../../../core/math/rng.js";
import { roomGrid, type OccupancyGrid } from "../../../scenegraph/occupancy.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { createSymbolicReasoner } from "../symbolic.js";
import { createSymbolic2dReasoner } from "../symbolic2d.js";
import { queryOf } from "../query.js";
import type { ReasonerAnswer } from "../types.js";
import type { ExplorerName } from "./options.js";
import type { ActiveAgent, AgentContext, AgentDecision } from "./types.js";
import { approach, BODY_CLEARANCE_M, canAct, hiddenInGraph, hiddenInView, lookInto, RevealLog, type RevealTarget } from "./reveal.js";
import {
  asTarget,
  itemNode,
  observeSlope2d,
  observeSlope3d,
  observeStack2d,
  observeStack3d,
  slopeAnswer,
  slopeNodes,
  slopeObjectCategory,
  StackExperiment,
  type SlopeObservation,
} from "./experiments.js";

/** Planning horizon (actions): receding-horizon next-best-view planning looks a few actions ahead (H ≤ 4 is usual); 3 keeps a step under budget. Ours. */
const PLAN_DEPTH = 3;
/** NBVP's degressive coefficient, per action of path length. */
const PATH_DISCOUNT = 0.25;
/** Weight of unknown voxels away from the question's objects (ours: 0.1-0.2 keeps the question's objects first). */
const BACKGROUND_WEIGHT = 0.15;
/** verify: weight of the question's objects when doubted nodes exist (the doubted ones weigh 1). */
const VERIFY_QUESTION_WEIGHT = 0.5;
/** Region of interest: node boxes grown by this much (m; 0.2 m of margin plus one voxel of the grid; ours). */
const ROI_GROW_M = 0.3;
/** Coverage at which the agent's view of its region of interest counts as complete (ours: 0.6 of its voxels seen). */
const COVERAGE_TARGET = 0.6;
/** Answer unchanged for this many steps (ours). */
const STABLE_STEPS = 3;
/** Below this weighted gain no view is worth taking: coverage has saturated (voxels). */
const MIN_GAIN = 1;
/**
 * While something the agent could reveal (a closed box, a cloth) is still hidden, its answer's confidence is at most
 * this (ours: below any useful --threshold, so the episode does not end on a guess about what it has not uncovered).
 */
const HIDDEN_CONFIDENCE_CAP = 0.5;
/** Confidence in what the agent saw its own experiment do (ours: the simulator ran the task's experiment; the view may mislead a little). */
const OBSERVED_CONFIDENCE = 0.95;
/** The 2D arm's acts refused as out of reach before it gives up walking to its targets (ours: each is followed by the walk it says). */
const MAX_OUT_OF_REACH = 4;
/** The 2D arm walks this much (m) past the distance a refusal gives, to stand within reach (ours: a step's worth of slack for turning). */
const REACH_MARGIN_M = 0.1;
/** Steps aside the 2D arm takes round what blocks its walk to a target before it gives the target up (ours: a box's width and more). */
const MAX_ASIDES = 4;
/** Steps to look into a box once open: up to one step up and the turns that aim at its floor (ours). */
const LOOK_STEPS = 4;
/** Attempts at an experiment before the agent falls back on its program. */
const EXPERIMENT_ATTEMPTS = 3;
/**
 * Heights under this above the floor (m) are the floor's own voxels (its points, reconstruction noise) and do not
 * block the walk: one and a half of the occupancy grid's 0.1 m voxels.
 */
const FLOOR_LAYER_M = 0.15;

const poseKey = (p: AgentPose) => `${p.position.map((x) => Math.round(x * 100)).join(",")}|${Math.round(p.yaw * 100)}|${Math.round(p.pitch * 100)}`;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The categories the question names: its referents' and the counted one. */
function questionCategories(task: Task): Set<string> {
  const q = queryOf(task);
  return new Set([...q.referents.map((r) => r.category), ...(q.countCategory ? [q.countCategory] : [])]);
}

interface Plan {
  first: NavigationAction;
  path: NavigationAction[];
  score: number;
}

class ExplorerAgent implements ActiveAgent {
  readonly id: string;
  private readonly grid: OccupancyGrid | null;
  private integrated = 0;
  private readonly blocked = new Set<string>();
  private readonly rng: Rng;
  private readonly categories: Set<string>;
  private readonly counting: boolean;
  private answers: Array<string | null> = [];
  private reveals = new RevealLog();
  /** The phase of a changing world the agent last looked at: a new one has its boxes closed again. */
  private phaseIndex = 0;
  /** The 2D arm's acts refused as out of reach so far (each is followed by the walk towards the target it says). */
  private outOfReach = 0;
  /** The reveal the agent asked for at its last step, whose outcome the next step reads. */
  private pending: RevealTarget | null = null;
  /** The 2D arm's colour-qualified names the hands did not resolve: asked again by category alone. */
  private readonly bareNames = new Set<string>();
  /** A box just opened, and the steps left to look into it. */
  private looking: { target: RevealTarget; left: number } | null = null;
  /** The 2D arm's walk towards a target the simulator said is out of reach: forward steps left. */
  private walk2d: { ref: string; forward: number; asides: number; side?: "move_left" | "move_right" } | null = null;
  /** Inclined Plane with the hands: the experiment's state and what it showed. */
  private experiment: { placed: boolean; tries: number; seen: SlopeObservation | null } = { placed: false, tries: 0, seen: null };
  /** Stacking & Stability with the hands. */
  private stack: StackExperiment | null = null;

  constructor(
    private readonly name: ExplorerName,
    private readonly task: Task,
    private readonly arm: "2d" | "3d",
  ) {
    this.id = `${arm === "3d" ? "symbolic" : "symbolic-2d"}+${arm === "3d" ? name : "random"}`;
    this.grid = arm === "3d" ? roomGrid(task.room) : null;
    this.rng = new Rng(`${task.seed}/${task.task_id}/active-${this.id}`);
    this.categories = questionCategories(task);
    this.counting = task.answer_format === "integer";
  }

  private integrate(ctx: AgentContext): void {
    if (!this.grid) return;
    for (; this.integrated < ctx.bundle.views.length; this.integrated++) {
      const v = ctx.bundle.views[this.integrated]!;
      this.grid.integrate(v.depth, v.width, v.height, v.K, v.E);
    }
  }

  /** Voxels of the region of interest: around the question's objects, or the whole room when none is known yet (or the question counts). */
  private roi(graph: SceneGraph | null): { question: number[]; doubted: number[] } {
    const grid = this.grid!;
    const nodes = graph?.nodes ?? [];
    const named = nodes.filter((n) => this.categories.has(n.label));
    const all = () => Array.from({ length: grid.state.length }, (_, v) => v);
    const question = this.counting || named.length === 0 ? all() : [...new Set(named.flatMap((n) => grid.voxelsOfBox(n.box, ROI_GROW_M)))];
    const doubted =
      this.name === "verify"
        ? [
            ...new Set(
              nodes
                .filter((n) => n.flags.possible_duplicate_of.length > 0 || n.flags.fragment || n.flags.low_support)
                .flatMap((n) => grid.voxelsOfBox(n.box, ROI_GROW_M)),
            ),
          ]
        : [];
    return { question, doubted };
  }

  private weights(roi: { question: number[]; doubted: number[] }): Float32Array {
    const w = new Float32Array(this.grid!.state.length).fill(BACKGROUND_WEIGHT);
    const q = roi.doubted.length ? VERIFY_QUESTION_WEIGHT : 1;
    for (const v of roi.question) w[v] = Math.max(w[v]!, q);
    for (const v of roi.doubted) w[v] = 1;
    return w;
  }

  /** approach()'s view of the body: where it may stand, and the moves the simulator refused from a pose. */
  private readonly canPass = (p: AgentPose) => this.passable(p);
  private readonly wasBlocked = (from: AgentPose, a: string) => this.blocked.has(`${poseKey(from)}|${a}`);

  private passable(p: AgentPose): boolean {
    const g = this.grid!;
    const [x, y, z] = p.position;
    if (
      x < g.bounds.min[0] + BODY_CLEARANCE_M ||
      x > g.bounds.max[0] - BODY_CLEARANCE_M ||
      y < g.bounds.min[1] + BODY_CLEARANCE_M ||
      y > g.bounds.max[1] - BODY_CLEARANCE_M ||
      z <= g.bounds.min[2] ||
      z > g.bounds.max[2] + 1e-9
    )
      return false;
    // the body stands on the floor: whatever the map holds from above the floor's own layer up to the eye blocks it
    // (a box on the floor stops the walk as much as a wall at eye height)
    for (let h = g.bounds.min[2] + FLOOR_LAYER_M; h <= Math.min(z, g.bounds.max[2] - g.voxelM / 2); h += g.voxelM)
      for (const [dx, dy] of [
        [0, 0],
        [BODY_CLEARANCE_M, 0],
        [-BODY_CLEARANCE_M, 0],
        [0, BODY_CLEARANCE_M],
        [0, -BODY_CLEARANCE_M],
      ] as const)
        if (g.isOccupied(x + dx, y + dy, h)) return false;
    return true;
  }

  /** The best action sequence (NBVP receding horizon); null when nothing can be done. */
  private plan(ctx: AgentContext, weight: Float32Array): Plan | null {
    const { width, height, hfov_deg } = this.task.camera;
    const K = intrinsicsFromHfov(width, height, hfov_deg);
    const gains = new Map<string, number>();
    const gainOf = (p: AgentPose) => {
      const k = poseKey(p);
      let g = gains.get(k);
      if (g === undefined) gains.set(k, (g = this.grid!.gain(p, K, width, height, weight)));
      return g;
    };
    let best: Plan | null = null;
    const seen = new Map<string, number>([[poseKey(ctx.pose), 0]]);
    let frontier: Array<{ pose: AgentPose; path: NavigationAction[]; score: number }> = [{ pose: ctx.pose, path: [], score: 0 }];
    for (let depth = 1; depth <= PLAN_DEPTH; depth++) {
      const next: typeof frontier = [];
      for (const node of frontier)
        for (const a of NAVIGATION_ACTIONS) {
          if (this.blocked.has(`${poseKey(node.pose)}|${a}`)) continue;
          const p = intendedPose(node.pose, a);
          if (a.startsWith("move_") ? !this.passable(p) : Math.abs(p.pitch) > Math.PI / 2 + 1e-9) continue;
          const k = poseKey(p);
          if ((seen.get(k) ?? Infinity) <= depth) continue;
          seen.set(k, depth);
          const path = [...node.path, a];
          const score = node.score + gainOf(p) * Math.exp(-PATH_DISCOUNT * depth);
          next.push({ pose: p, path, score });
          if (!best || score > best.score) best = { first: path[0]!, path, score };
        }
      frontier = next;
    }
    return best;
  }

  private async answerNow(ctx: AgentContext, signal?: AbortSignal): Promise<ReasonerAnswer> {
    return this.arm === "3d"
      ? createSymbolicReasoner().answer({ task: this.task, graph: ctx.graph!, bundle: ctx.bundle, uncertainty: ctx.uncertainty }, signal)
      : createSymbolic2dReasoner().answer({ task: this.task, bundle: ctx.bundle }, signal);
  }

  async step(ctx: AgentContext, signal?: AbortSignal): Promise<AgentDecision> {
    const t0 = performance.now();
    // a move that did not change the pose was blocked: never plan it from there again
    const prev = ctx.history.at(-1);
    if (ctx.lastBlocked && prev?.action) this.blocked.add(`${poseKey(ctx.pose)}|${prev.action}`);
    if (ctx.phase && ctx.phase.index !== this.phaseIndex) this.enterPhase(ctx.phase.index);
    this.integrate(ctx);
    const a = await this.answerNow(ctx, signal);
    const trace = [...a.raw];
    let confidence = a.confidence;
    let coverage = 1;
    let action: string;
    let why: string;
    if (this.grid) {
      const roi = this.roi(ctx.graph);
      coverage = this.grid.knownFraction(roi.question);
      if (confidence !== null) confidence = r3(confidence * Math.min(1, coverage / COVERAGE_TARGET));
      trace.push(
        `coverage of the region of interest ${r3(coverage)} (${roi.question.length} voxels${roi.doubted.length ? `, ${roi.doubted.length} around doubted nodes` : ""}); program confidence ${a.confidence}`,
      );
    }
    const experiment = ctx.actions === "all" ? this.experimentStep(ctx, a.answer) : null;
    if (experiment) {
      const answer = this.observedAnswer();
      trace.push(experiment.why);
      return {
        requestedAction: experiment.action,
        action: experiment.action,
        status: answer ? "parsed" : a.status,
        answer: answer ?? a.answer,
        ...(!answer && a.match ? { match: a.match } : {}),
        confidence: answer ? OBSERVED_CONFIDENCE : confidence === null ? null : Math.min(confidence, HIDDEN_CONFIDENCE_CAP),
        reasoning: answer ? `observed: ${experiment.why}` : `${a.reason ?? a.method}; ${experiment.why}`,
        trace,
        reprompted: false,
        latencyMs: Math.round(performance.now() - t0),
      };
    }
    const reveal = ctx.actions === "all" ? this.revealStep(ctx) : null;
    if (reveal) {
      if (confidence !== null) confidence = Math.min(confidence, HIDDEN_CONFIDENCE_CAP);
      trace.push(reveal.why);
      return {
        requestedAction: reveal.action,
        action: reveal.action,
        status: a.status,
        answer: a.answer,
        ...(a.match ? { match: a.match } : {}),
        confidence,
        reasoning: `${a.reason ?? a.method}; ${reveal.why}`,
        trace,
        reprompted: false,
        latencyMs: Math.round(performance.now() - t0),
      };
    }
    this.answers.push(a.status === "parsed" ? a.answer : null);
    const recent = this.answers.slice(-STABLE_STEPS);
    const stable = recent.length === STABLE_STEPS && recent[0] !== null && recent.every((x) => x === recent[0]) && coverage >= COVERAGE_TARGET;
    if (stable) [action, why] = [STOP_ACTION, `answer ${recent[0]} unchanged for ${STABLE_STEPS} steps with coverage ${r3(coverage)}`];
    else if (this.name === "random" || !this.grid) {
      const options = NAVIGATION_ACTIONS.filter((x) => !this.blocked.has(`${poseKey(ctx.pose)}|${x}`));
      action = options[this.rng.int(0, options.length - 1)] ?? "turn_left";
      why = "random exploration";
    } else {
      const plan = this.plan(ctx, this.weights(this.roi(ctx.graph)));
      if (!plan || plan.score < MIN_GAIN) [action, why] = [STOP_ACTION, `coverage saturated: best reachable gain ${r3(plan?.score ?? 0)}`];
      else [action, why] = [plan.first, `${this.name}: path ${plan.path.join(" ")} reveals ${r3(plan.score)} weighted unknown voxels`];
    }
    trace.push(why);
    return {
      requestedAction: action,
      action,
      status: a.status,
      answer: a.answer,
      ...(a.match ? { match: a.match } : {}),
      confidence,
      reasoning: `${a.reason ?? a.method}; ${why}`,
      trace,
      reprompted: false,
      latencyMs: Math.round(performance.now() - t0),
    };
  }

  /**
   * The hands (--actions all): reveal what a closed box or a cloth hides before exploring with the camera. Returns
   * the action (an act when within reach and in view, else the first move of the walk there) or null when nothing
   * is left to reveal.
   */
  private revealStep(ctx: AgentContext): { action: string; why: string } | null {
    const last = ctx.history.at(-1);
    if (this.pending) {
      const t = this.pending;
      if (last && last.action === null) {
        // an invalid act (a name the hands could not resolve where the agent thought it was) stayed in place; the
        // 2D arm's colour word may be one the hands read otherwise (shading): once more by its category alone
        if (t.bare && t.ref !== t.bare && !this.bareNames.has(t.ref)) this.bareNames.add(t.ref);
        else this.reveals.giveUp(t);
        this.pending = null;
      } else if (last?.action?.startsWith(`${t.action}(`)) {
        const away = /out of reach \((\d+(?:\.\d+)?) m away/.exec(last.action_result ?? "");
        if (!ctx.lastBlocked) {
          this.reveals.revealed(t);
          // a box just opened: look into it before exploring on (3D aims at its floor; the 2D arm tilts down once)
          if (t.action === "open") this.looking = { target: t, left: LOOK_STEPS };
        } else if (!this.grid && away) {
          // the 2D arm learns its distance only from the simulator's refusal: walk that far, then ask again (up to
          // a limit: something it cannot see round may stand in the way)
          if (++this.outOfReach > MAX_OUT_OF_REACH) this.reveals.giveUp(t);
          else this.walk2d = { ref: t.ref, forward: Math.max(1, Math.ceil((Number(away[1]) - REACH_M + REACH_MARGIN_M) / MOVE_STEP_M)), asides: 0 };
        } else this.reveals.tried(t);
        this.pending = null;
      }
    }
    if (this.looking) {
      const { target, left } = this.looking;
      // a look the simulator refused (too high, too close) ends the looking
      const action = left > 0 && !ctx.lastBlocked ? (this.grid ? lookInto(ctx.pose, target) : left === LOOK_STEPS ? "turn_down" : null) : null;
      if (action) {
        this.looking.left--;
        return { action, why: `looking into the box it opened (${target.ref})` };
      }
      this.looking = null;
    }
    if (this.grid) {
      const targets = this.reveals.open(ctx.graph ? hiddenInGraph(ctx.graph) : []);
      for (const t of targets) {
        if (canAct(this.task, ctx.pose, t)) {
          this.pending = t;
          const action = `${t.action}(${t.ref})`;
          return { action, why: `${t.action === "open" ? "a closed box" : "a cloth"} may hide what the question needs: ${action}` };
        }
        const move = approach(this.task, ctx.pose, t, this.canPass, this.wasBlocked);
        if (move) return { action: move, why: `walking to ${t.ref} to ${t.action === "open" ? "open it" : "lift it"}` };
        this.reveals.tried(t);
      }
      return null;
    }
    // the 2D arm: act on what the masks show; when the simulator said how far out of reach, walk that far towards it
    const targets = this.reveals.open(hiddenInView(ctx).map((x) => (x.bare && this.bareNames.has(x.ref) ? { ...x, ref: x.bare } : x)));
    const walk = this.walk2d;
    const t = (walk && targets.find((x) => x.ref === walk.ref)) ?? targets[0];
    if (!t) return null;
    if (walk && walk.ref === t.ref && walk.forward > 0) {
      // face it first (its mask off the middle third of the view); around what blocks the straight walk, sideways
      const u = t.u ?? 0.5;
      let action: NavigationAction;
      if (ctx.lastBlocked && last?.action === "move_forward") {
        // that step did not happen: step aside, always to the side first chosen (towards the target), a few times at most
        walk.forward++;
        walk.side ??= u < 0.5 ? "move_left" : "move_right";
        if (++walk.asides > MAX_ASIDES) {
          this.reveals.giveUp(t);
          this.walk2d = null;
          return null;
        }
        action = walk.side;
      } else if (u < 1 / 3) action = "turn_left";
      else if (u > 2 / 3) action = "turn_right";
      else {
        action = "move_forward";
        walk.forward--;
      }
      return {
        action,
        why: `${action === "move_forward" ? "walking towards" : action.startsWith("turn") ? "turning to" : "stepping around what blocks the way to"} the ${t.ref} (out of reach)`,
      };
    }
    this.walk2d = null;
    this.pending = t;
    const action = `${t.action}(${t.ref})`;
    return { action, why: `the view shows a ${t.ref} that may hide what the question needs: ${action}` };
  }

  /** The world changed while no one looked: what it revealed and its answers so far belong to the last phase. */
  private enterPhase(index: number): void {
    this.phaseIndex = index;
    this.reveals = new RevealLog();
    this.pending = null;
    this.looking = null;
    this.walk2d = null;
    this.outOfReach = 0;
    this.answers = [];
  }

  /** What the agent saw its own experiment show, as an answer (null: no experiment watched). */
  private observedAnswer(): string | null {
    if (this.experiment.seen) return slopeAnswer(this.task, this.experiment.seen);
    return this.stack?.answer ?? null;
  }

  /** The physics subcategories' experiments (--actions all); null when there is none to do. */
  private experimentStep(ctx: AgentContext, programAnswer: string | null): { action: string; why: string } | null {
    if (this.task.subcategory === "inclined_plane") return this.slopeExperiment(ctx);
    if (this.task.subcategory === "stacking_stability") return this.stackExperiment(ctx, programAnswer);
    return null;
  }

  /** Stacking & Stability with the hands: stack in the program's order first, watch, and keep the first order that stands. */
  private stackExperiment(ctx: AgentContext, programAnswer: string | null): { action: string; why: string } | null {
    if (!this.stack) {
      let first: string[] | null = null;
      try {
        const parsed: unknown = programAnswer ? JSON.parse(programAnswer) : null;
        if (Array.isArray(parsed) && parsed.every((x) => typeof x === "string")) first = parsed;
      } catch {
        first = null;
      }
      this.stack = new StackExperiment(this.task.options, first);
    }
    const view = ctx.bundle.views.length - 1;
    const observe = (order: string[]) => (this.grid ? (ctx.graph ? observeStack3d(ctx.graph, order, view) : null) : observeStack2d(ctx.bundle, order));
    const placeOn = (upper: string, lower: string): string | null => {
      if (!this.grid) return `put_on(${upper.replace(/_/g, " ")}, ${lower.replace(/_/g, " ")})`;
      const graph = ctx.graph;
      const node = (item: string) => (graph ? (itemNode(graph, item, view) ?? graph.nodes.find((n) => n.label === item)) : undefined);
      const [u, l] = [node(upper), node(lower)];
      if (!u || !l) return null;
      const [ut, lt] = [asTarget(u), asTarget(l)];
      if (canAct(this.task, ctx.pose, ut) && canAct(this.task, ctx.pose, lt)) return `put_on(${u.id}, ${l.id})`;
      return approach(this.task, ctx.pose, canAct(this.task, ctx.pose, ut) ? lt : ut, this.canPass, this.wasBlocked);
    };
    const action = this.stack.next(ctx.lastBlocked, observe, placeOn);
    if (this.stack.answer) return { action: STOP_ACTION, why: this.stack.why };
    return action ? { action, why: action.startsWith("put_on(") ? `stacking to watch it: ${action}` : "walking within reach of the items" } : null;
  }

  /**
   * Inclined Plane with the hands: put the object on the slope, then read the outcome from the next view and stop.
   * Null when the experiment cannot be done (the agent then answers from its program as before).
   */
  private slopeExperiment(ctx: AgentContext): { action: string; why: string } | null {
    const e = this.experiment;
    if (e.seen) return { action: STOP_ACTION, why: "the experiment has been watched" };
    if (e.placed) {
      e.placed = false;
      if (!ctx.lastBlocked) {
        const view = ctx.bundle.views.length - 1;
        e.seen = this.grid ? (ctx.graph ? observeSlope3d(this.task, ctx.graph, view) : null) : observeSlope2d(this.task, ctx.bundle);
        if (e.seen) return { action: STOP_ACTION, why: e.seen.why };
      }
      e.tries++;
    }
    if (e.tries >= EXPERIMENT_ATTEMPTS) return null;
    const cat = slopeObjectCategory(this.task);
    if (!cat) return null;
    if (!this.grid) {
      const last = ctx.history.at(-1);
      if (last?.action_result?.includes("out of reach") && !last.action?.startsWith("move_")) return { action: "move_forward", why: "walking up to the slope" };
      e.placed = true;
      return { action: `put_on(${cat.replace(/_/g, " ")}, ${"slope"})`, why: `trying it: the ${cat} on the slope` };
    }
    const nodes = ctx.graph ? slopeNodes(this.task, ctx.graph) : null;
    if (!nodes) return null;
    const [object, board] = [asTarget(nodes.object), asTarget(nodes.board)];
    if (canAct(this.task, ctx.pose, object) && canAct(this.task, ctx.pose, board)) {
      e.placed = true;
      return { action: `put_on(${nodes.object.id}, ${nodes.board.id})`, why: `trying it: ${nodes.object.id} (${cat}) on the slope ${nodes.board.id}` };
    }
    const move = approach(this.task, ctx.pose, canAct(this.task, ctx.pose, object) ? board : object, this.canPass, this.wasBlocked);
    if (!move) {
      e.tries = EXPERIMENT_ATTEMPTS;
      return null;
    }
    return { action: move, why: `walking within reach of the ${cat} and the slope` };
  }

  /** The program always commits when it can: its answer now is the forced choice. */
  async forceChoice(ctx: AgentContext, signal?: AbortSignal): Promise<AgentDecision> {
    const t0 = performance.now();
    const observed = this.observedAnswer();
    if (observed)
      return {
        requestedAction: STOP_ACTION,
        action: STOP_ACTION,
        status: "parsed",
        answer: observed,
        confidence: OBSERVED_CONFIDENCE,
        reasoning: "forced choice: what the agent's experiment showed",
        trace: [this.experiment.seen?.why ?? this.stack?.why ?? ""],
        reprompted: false,
        latencyMs: Math.round(performance.now() - t0),
      };
    const a = await this.answerNow(ctx, signal);
    return {
      requestedAction: STOP_ACTION,
      action: STOP_ACTION,
      status: a.status,
      answer: a.answer,
      ...(a.match ? { match: a.match } : {}),
      confidence: a.confidence,
      reasoning: `forced choice: ${a.reason ?? a.method}`,
      trace: a.raw,
      reprompted: false,
      latencyMs: Math.round(performance.now() - t0),
    };
  }
}

export function createExplorerAgent(name: ExplorerName, task: Task, arm: "2d" | "3d"): ActiveAgent {
  return new ExplorerAgent(name, task, arm);
}
