/**
 * The built-in world's rigid-body physics: one Rapier world (its cross-platform deterministic build) whose
 * bodies are the generator's objects, stepped at ESI's 1/240 s. The engine is WebAssembly that takes a few
 * hundred milliseconds to instantiate, so it loads once, on demand (`loadPhysics`), and only generators that
 * simulate need it; a world made before it has loaded is a programming error, said as such.
 */
import { createHash } from "node:crypto";
import type { Vec3 } from "../../../core/math/vec.js";
import { quatToMat, type Quat } from "../../../core/math/quat.js";
import { DEFAULT_DENSITY_KG_M3, DEFAULT_MATERIAL, GRAVITY_M_S2, PHYSICS_STEP_S, STICK_SLIP_SPEED_M_S, type Material } from "./params.js";
import { normalized } from "./rotation.js";

type Rapier = typeof import("@dimforge/rapier3d-deterministic-compat").default;
type RigidBody = import("@dimforge/rapier3d-deterministic-compat").RigidBody;
type Collider = import("@dimforge/rapier3d-deterministic-compat").Collider;
type ColliderDesc = import("@dimforge/rapier3d-deterministic-compat").ColliderDesc;

let engine: Rapier | undefined;
let loading: Promise<Rapier> | undefined;

/** Loads and instantiates the engine once per thread; later calls return at once. */
export async function loadPhysics(): Promise<void> {
  loading ??= import("@dimforge/rapier3d-deterministic-compat").then(async (m) => {
    await m.default.init();
    engine = m.default;
    return m.default;
  });
  await loading;
}

function rapier(): Rapier {
  if (!engine) throw new Error("physics engine not loaded: await loadPhysics() before building a PhysicsWorld");
  return engine;
}

/** A box by its half-extents (m), centred on the body's origin. */
export interface BoxShape {
  kind: "box";
  half: Vec3;
}
/** The convex hull of points in the body's frame (x, y, z triples, m). */
interface HullShape {
  kind: "hull";
  points: Float32Array;
}
/** A ball of the radius (m), centred on the body's origin: exact where a hull of a sphere's mesh would roll onto a facet. */
interface BallShape {
  kind: "ball";
  radius: number;
}
/** A convex piece of a compound. */
export type ConvexShape = BoxShape | HullShape | BallShape;
/** Several convex pieces on one rigid body, each moved by its offset in the body's frame. */
interface CompoundShape {
  kind: "compound";
  parts: ReadonlyArray<{ shape: ConvexShape; offset: Vec3 }>;
}
export type ShapeSpec = ConvexShape | CompoundShape;

export interface BodySpec {
  /** The task object's instance id: poses and problems name bodies by it. */
  id: number;
  shape: ShapeSpec;
  /** Body origin in the world (m): the object's box centre. */
  position: Vec3;
  orientation: Quat;
  /** A fixed body never moves (the floor, a slope): ESI's `fixed_base`. */
  fixed?: boolean;
  /** Total mass (kg); without it the shape's volume at DEFAULT_DENSITY_KG_M3. */
  massKg?: number;
  material?: Material;
}

export interface Pose {
  position: Vec3;
  orientation: Quat;
}

interface Entry {
  spec: BodySpec;
  body: RigidBody;
  colliders: Collider[];
  material: Material;
  /** The body's shape vertices in its own frame, for its world AABB. */
  vertices: Float64Array;
  /** Its balls (centre in its own frame, radius): a ball's world AABB is its moved centre +- its radius. */
  balls: ReadonlyArray<{ centre: Vec3; radius: number }>;
}

const boxCorners = (h: Vec3, o: Vec3 = [0, 0, 0]): number[] =>
  [-1, 1].flatMap((sx) => [-1, 1].flatMap((sy) => [-1, 1].flatMap((sz) => [o[0] + sx * h[0], o[1] + sy * h[1], o[2] + sz * h[2]])));

function shapeParts(shape: ShapeSpec): ReadonlyArray<{ shape: ConvexShape; offset: Vec3 }> {
  return shape.kind === "compound" ? shape.parts : [{ shape, offset: [0, 0, 0] }];
}

function shapeVertices(shape: ShapeSpec): Float64Array {
  const out: number[] = [];
  for (const { shape: part, offset } of shapeParts(shape)) {
    if (part.kind === "box") out.push(...boxCorners(part.half, offset));
    else if (part.kind === "hull")
      for (let i = 0; i < part.points.length; i += 3) out.push(part.points[i]! + offset[0], part.points[i + 1]! + offset[1], part.points[i + 2]! + offset[2]);
  }
  return Float64Array.from(out);
}

const shapeBalls = (shape: ShapeSpec) =>
  shapeParts(shape).flatMap(({ shape: part, offset }) => (part.kind === "ball" ? [{ centre: offset, radius: part.radius }] : []));

function colliderDescs(R: Rapier, shape: ShapeSpec, id: number): ColliderDesc[] {
  const one = (part: ConvexShape, offset: Vec3): ColliderDesc => {
    if (part.kind === "box") return R.ColliderDesc.cuboid(part.half[0], part.half[1], part.half[2]).setTranslation(offset[0], offset[1], offset[2]);
    if (part.kind === "ball") return R.ColliderDesc.ball(part.radius).setTranslation(offset[0], offset[1], offset[2]);
    const desc = R.ColliderDesc.convexHull(part.points);
    if (!desc) throw new Error(`body ${id}: its ${part.points.length / 3} hull points span no volume`);
    return desc.setTranslation(offset[0], offset[1], offset[2]);
  };
  if (shape.kind !== "compound") return [one(shape, [0, 0, 0])];
  if (shape.parts.length === 0) throw new Error(`body ${id}: a compound shape needs at least one part`);
  return shape.parts.map((p) => one(p.shape, p.offset));
}

export class PhysicsWorld {
  private readonly world;
  private readonly entries = new Map<number, Entry>();

  constructor(readonly stepS: number = PHYSICS_STEP_S) {
    const R = rapier();
    this.world = new R.World({ x: 0, y: 0, z: -GRAVITY_M_S2 });
    this.world.timestep = stepS;
  }

  addBody(spec: BodySpec): void {
    if (this.entries.has(spec.id)) throw new Error(`body ${spec.id} is already in the world`);
    const R = rapier();
    const q = normalized(spec.orientation);
    const bodyDesc = (spec.fixed ? R.RigidBodyDesc.fixed() : R.RigidBodyDesc.dynamic())
      .setTranslation(spec.position[0], spec.position[1], spec.position[2])
      .setRotation(q)
      // a settling object must come to rest, not doze off mid-slide: the labels read where it ends
      .setCanSleep(false);
    const body = this.world.createRigidBody(bodyDesc);
    const material = spec.material ?? DEFAULT_MATERIAL;
    const descs = colliderDescs(R, spec.shape, spec.id);
    const colliders = descs.map((desc) => {
      desc
        .setFriction(material.staticFriction)
        .setRestitution(material.restitution)
        // a sliding body's dynamic coefficient against a fixed body's static one: the pair takes the smaller,
        // so a pair of one material slides at its dynamic coefficient (PhysX's rule for equal materials)
        .setFrictionCombineRule(R.CoefficientCombineRule.Min)
        .setDensity(DEFAULT_DENSITY_KG_M3);
      return this.world.createCollider(desc, body);
    });
    if (spec.massKg !== undefined && !spec.fixed) {
      if (!(spec.massKg > 0)) throw new Error(`body ${spec.id}: mass ${spec.massKg} kg is not positive`);
      // each collider carries its share of the volume's mass, so a compound keeps its centre of mass
      const total = colliders.reduce((s, c) => s + c.volume(), 0);
      for (const c of colliders) c.setMass((spec.massKg * c.volume()) / total);
    }
    // the engine otherwise updates a body's mass at the next step; poses and masses read before it must agree
    body.recomputeMassPropertiesFromColliders();
    this.entries.set(spec.id, { spec, body, colliders, material, vertices: shapeVertices(spec.shape), balls: shapeBalls(spec.shape) });
  }

  /** Advances the world `steps` physics steps, switching each body between its static and dynamic friction. */
  step(steps = 1): void {
    for (let s = 0; s < steps; s++) {
      for (const e of this.entries.values()) {
        if (e.spec.fixed || e.material.staticFriction === e.material.dynamicFriction) continue;
        const v = e.body.linvel();
        const sliding = v.x * v.x + v.y * v.y + v.z * v.z > STICK_SLIP_SPEED_M_S * STICK_SLIP_SPEED_M_S;
        const friction = sliding ? e.material.dynamicFriction : e.material.staticFriction;
        for (const c of e.colliders) if (c.friction() !== friction) c.setFriction(friction);
      }
      this.world.step();
    }
  }

  private entry(id: number): Entry {
    const e = this.entries.get(id);
    if (!e) throw new Error(`no body ${id} in the world`);
    return e;
  }

  ids(): number[] {
    return [...this.entries.keys()];
  }

  isFixed(id: number): boolean {
    return this.entry(id).spec.fixed === true;
  }

  pose(id: number): Pose {
    const { body } = this.entry(id);
    const t = body.translation();
    const r = body.rotation();
    return { position: [t.x, t.y, t.z], orientation: { x: r.x, y: r.y, z: r.z, w: r.w } };
  }

  /** Linear speed (m/s). */
  speed(id: number): number {
    const v = this.entry(id).body.linvel();
    return Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  }

  massKg(id: number): number {
    return this.entry(id).body.mass();
  }

  /** World-axis bounds of the body's shape at its current pose. */
  aabb(id: number): { min: Vec3; max: Vec3 } {
    const e = this.entry(id);
    const { position: p, orientation } = this.pose(id);
    const R = quatToMat(orientation);
    const min: Vec3 = [Infinity, Infinity, Infinity];
    const max: Vec3 = [-Infinity, -Infinity, -Infinity];
    const v = e.vertices;
    for (let i = 0; i < v.length; i += 3) {
      for (let k = 0; k < 3; k++) {
        const row = R[k as 0 | 1 | 2];
        const w = row[0] * v[i]! + row[1] * v[i + 1]! + row[2] * v[i + 2]! + p[k]!;
        if (w < min[k]!) min[k] = w;
        if (w > max[k]!) max[k] = w;
      }
    }
    for (const { centre: c, radius } of e.balls)
      for (let k = 0; k < 3; k++) {
        const row = R[k as 0 | 1 | 2];
        const w = row[0] * c[0] + row[1] * c[1] + row[2] * c[2] + p[k]!;
        if (w - radius < min[k]!) min[k] = w - radius;
        if (w + radius > max[k]!) max[k] = w + radius;
      }
    return { min, max };
  }

  /** How deep two bodies overlap (m, 0 when apart or only touching), from the engine's contact manifolds. */
  penetration(a: number, b: number): number {
    const ea = this.entry(a);
    const eb = this.entry(b);
    let deepest = 0;
    for (const ca of ea.colliders)
      for (const cb of eb.colliders)
        this.world.contactPair(ca, cb, (manifold) => {
          for (let i = 0; i < manifold.numContacts(); i++) deepest = Math.max(deepest, -manifold.contactDist(i));
        });
    return deepest;
  }

  /** The ids of the bodies touching this one: a contact manifold with at least one contact point. */
  contacts(id: number): number[] {
    const byHandle = new Map<number, Entry>();
    for (const e of this.entries.values()) for (const c of e.colliders) byHandle.set(c.handle, e);
    const out = new Set<number>();
    for (const c of this.entry(id).colliders)
      this.world.contactPairsWith(c, (other) => {
        const e = byHandle.get(other.handle);
        if (!e || e.spec.id === id) return;
        this.world.contactPair(c, other, (manifold) => {
          if (manifold.numContacts() > 0) out.add(e.spec.id);
        });
      });
    return [...out].sort((x, y) => x - y);
  }

  /** SHA-256 of the engine's serialized world: equal hashes mean bit-identical worlds. */
  snapshotHash(): string {
    return createHash("sha256").update(this.world.takeSnapshot()).digest("hex");
  }

  /** Releases the engine's memory (WebAssembly memory is not garbage collected). */
  free(): void {
    this.world.free();
    this.entries.clear();
  }
}
