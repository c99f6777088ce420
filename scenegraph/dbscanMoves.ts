/**
 * `--instances dbscan` in the active memory follows what the agent moves (issue 46). That builder clusters
 * every point again each step, so a moved object's node is whatever its points make: its points from before
 * the move are left out of the clustering from then on (they show where it no longer is), and the node its
 * new points make is found by the same claim as the fusion memory's (scenegraph/manipulation.ts), and keeps
 * the object's id (scenegraph/nodeIds.ts):
 * - held (pick_up): each view's cluster of its label made only of points since the pick-up, nearest the
 *   camera within reach, is the held node; its points are left out before the next view is clustered (it
 *   travels with the camera);
 * - placed (put_on, put_inside, put_back; a lid after open or close): the held node's last points are left
 *   out; the first cluster of its label made only of points since the placement, nearest the placement, is
 *   the node, and from then on the cluster that holds most of its points. An object put down touching its
 *   support clusters into the support's node (dbscan separates by gaps alone): then no cluster is its own.
 */
import type { Vec3 } from "../core/math/vec.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import type { Cluster } from "./instances/cluster.js";
import { distanceToBox, type NodeClaim } from "./instances/fusion.js";
import { meanPoint, nodeLabel } from "./nodes.js";

/** A claim on the next views' cluster of a moved object: its kept node id, and the view the move showed first. */
interface DbscanClaim extends NodeClaim {
  id: string;
  since: number;
}

export class DbscanMoves {
  /** ignore[i] = 1: point i is of an object from before it moved; null while nothing moved. */
  private ignore: Uint8Array | null = null;
  /** The moved object whose next cluster is not found yet, or the held one (every view); null when none. One at a time: a later move's claim replaces it. */
  private claim: DbscanClaim | null = null;
  /** The points of each moved object's node in the last graph, by its kept id (the held one's: since the pick-up). */
  private readonly tracked = new Map<string, Uint32Array>();

  /** The points to leave out of the clustering of a cloud of `count` points; undefined while nothing moved. */
  ignored(count: number): Uint8Array | undefined {
    if (!this.ignore) return undefined;
    if (this.ignore.length < count) {
      const grown = new Uint8Array(count);
      grown.set(this.ignore);
      this.ignore = grown;
    }
    return this.ignore;
  }

  private drop(points: ArrayLike<number>): void {
    if (points.length === 0) return;
    let need = 0;
    for (let k = 0; k < points.length; k++) need = Math.max(need, points[k]! + 1);
    const mask = this.ignored(need) ?? (this.ignore = new Uint8Array(need));
    for (let k = 0; k < points.length; k++) mask[points[k]!] = 1;
  }

  /** The agent moved the object of node `id` (its points in the last graph: `members`); view `view` shows the move first. */
  claimNode(id: string, members: Uint32Array, claim: NodeClaim, view: number): void {
    this.drop(members);
    this.tracked.delete(id);
    this.claim = { ...claim, id, since: view };
  }

  /** The held object was put down: its points in the hand are left out and its next cluster is claimed near the placement. False: nothing held. */
  placeHeld(claim: Omit<NodeClaim, "label">, view: number): boolean {
    const held = this.claim?.held ? this.claim : null;
    if (!held) return false;
    this.drop(this.tracked.get(held.id) ?? []);
    this.tracked.delete(held.id);
    this.claim = { ...claim, label: held.label, id: held.id, since: view };
    return true;
  }

  /** Before a new view is clustered: the held object's points of the earlier views are where the camera was. */
  beforeView(): void {
    if (!this.claim?.held) return;
    this.drop(this.tracked.get(this.claim.id) ?? []);
    this.tracked.delete(this.claim.id);
  }

  /** The kept id of the held object's node, or null when nothing is held. */
  get heldId(): string | null {
    return this.claim?.held ? this.claim.id : null;
  }

  /**
   * Which of this step's clusters (the view just added taken from `camera`) is which moved object, by its
   * kept id; remembers their points for the next step and ends a placement's claim once it is found.
   */
  find(clusters: readonly Cluster[], cloud: Pick<PointCloud, "count" | "view">, camera: Vec3): Map<Cluster, string> {
    const out = new Map<Cluster, string>();
    const taken = new Set<Cluster>();
    for (const [id, points] of this.tracked) {
      if (id === this.claim?.id) continue;
      const c = mostOf(clusters, points, cloud.count, taken);
      if (!c) continue;
      out.set(c, id);
      taken.add(c);
      this.tracked.set(id, c.members);
    }
    const claim = this.claim;
    if (!claim) return out;
    // the object's points from before the move are left out: its node is made of points since, and a
    // cluster with earlier points is something that was there before (the table it was put on)
    const fresh = clusters.filter((c) => !taken.has(c) && nodeLabel(c.votes) === claim.label && !hasEarlierView(c, cloud, claim.since));
    const near = claim.held ? { min: camera, max: camera } : claim.near;
    // held: within arm's reach; placed: the nearest, as a fused node takes the detection no node explains nearest its placement
    const found = nearestWithin(fresh, near, claim.held ? claim.reachM : Infinity);
    if (!found) return out;
    out.set(found, claim.id);
    // the held node's points of this view (and any since the pick-up): left out before the next view
    this.tracked.set(claim.id, claim.held ? found.members.filter((i) => cloud.view[i]! >= claim.since) : found.members);
    if (!claim.held) this.claim = null;
    return out;
  }
}

/** Whether any of the cluster's points comes from a view before `since`. */
function hasEarlierView(c: Cluster, cloud: Pick<PointCloud, "view">, since: number): boolean {
  for (const i of c.members) if (cloud.view[i]! < since) return true;
  return false;
}

function nearestWithin(clusters: readonly Cluster[], near: NodeClaim["near"], reachM: number): Cluster | null {
  let best: Cluster | null = null,
    bestD = reachM;
  for (const c of clusters) {
    const d = distanceToBox(meanPoint(c.xyz), near);
    if (d <= bestD) [best, bestD] = [c, d];
  }
  return best;
}

/** The cluster (not taken) holding the most of `points` (raw point indices), or null when none holds any. */
function mostOf(clusters: readonly Cluster[], points: Uint32Array, count: number, taken: ReadonlySet<Cluster>): Cluster | null {
  const mark = new Uint8Array(count);
  for (const i of points) mark[i] = 1;
  let best: Cluster | null = null,
    bestN = 0;
  for (const c of clusters) {
    if (taken.has(c)) continue;
    let n = 0;
    for (const i of c.members) n += mark[i]!;
    if (n > bestN) [best, bestN] = [c, n];
  }
  return best;
}
