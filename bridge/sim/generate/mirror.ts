/**
 * Specular Reflection (the ESI-Bench paper, Appendix Q.16-Q.18; ESI-Bench's released generators
 * batch_mirror_object_reality.py, batch_mirror_distance.py, batch_mirror_correspondence.py): one floor mirror
 * turned towards the room centre, a camera in front of it looking at it, and small objects placed so that the
 * mirror shows them (or, for Reflection Authoring's "no", so that the camera sees them only directly).
 *
 * - Reflection Authoring: "you can see a X. Are you seeing it through the mirror?" yes/no.
 * - Spatial Relations (mirror): two objects the mirror shows; which is closer to the observation position, A or B.
 * - Correspondence: three identical objects; which one (left, middle, right in the image) is the reflected one.
 *
 * The answer never comes from the record: each is re-derived from the placed geometry (`derive`) and checked
 * against what the rendered initial view shows directly and in the mirror (checkInitialView).
 */
import { poseToExtrinsic, projectPoint, type AgentPose } from "../../../core/math/camera.js";
import type { Rng } from "../../../core/math/rng.js";
import { quatFromYaw } from "../../../core/math/quat.js";
import type { Vec3 } from "../../../core/math/vec.js";
import { buildModel, categoryDef, LIBRARY } from "../../../core/objects/library.js";
import { MIRROR_CATEGORY, mirrorPlane, reflectPoint, seenThroughMirror, signedPlaneDistance, type MirrorRectangle } from "../../../core/objects/mirror.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { defaultLighting, displayName, makeRoom, plannedYes, pluralName, require, round4, SceneBuilder, WALL_MARGIN_M, type Room } from "./common.js";
import type { Draft, Generator, InitialViewProbe } from "./draft.js";
import { orbitPoses } from "./gtTrajectory.js";
import { initialView } from "./initialView.js";
import { directAndReflectedCounts, isVisible, VISIBLE_MIN_PX } from "./visibility.js";

/**
 * The mirror: ESI's `tytkbq` floor mirror, whose records give a half width of 0.45-0.48 m and a centre 1.14 m up
 * (scene_setup.mirror). Its height is not recorded; ours reaches from 0.1 m to 2.18 m, a full-length mirror that
 * shows objects on the floor in front of it. The frame (an object of its own) stands on the floor behind the pane.
 */
const MIRROR = { halfWidthM: 0.46, centreHeightM: 1.14, bottomM: 0.1, thicknessM: 0.02, frameDepthM: 0.04, frameBorderM: 0.05 };
/** ESI's MIRROR_TILT_MAX_DEG: the mirror's facing is the direction to the room centre turned by up to this much. */
const MIRROR_YAW_PERTURB_MAX_DEG = 30;
/**
 * ESI's mirror spot prefers a distance of about 2.0 m from its anchor (the agent, near the room centre) and at least
 * 0.45 m: ours draws it within this band of distances from the room centre.
 */
const MIRROR_CENTRE_DISTANCE_M: readonly [number, number] = [1.4, 2.6];
/** ESI's CAMERA_HEIGHT: the camera 0.8 m above the floor, looking level at the mirror's centre. */
const CAMERA_HEIGHT_M = 0.8;
/** ESI's MIRROR_AHEAD_DISTANCE: the camera this far in front of the mirror (3.0 m for Correspondence). */
const CAMERA_AHEAD_M = 2.0;
const CORRESPONDENCE_CAMERA_AHEAD_M = 3.0;
/**
 * The camera's lateral offset along the mirror (m): ESI scores candidate spots by |ahead − 2.0| + 0.8·|lateral| on a
 * 0.35 m grid, so the chosen one sits within about one grid step of the axis; ours draws it in this range.
 */
const CAMERA_LATERAL_MAX_M = 0.35;
/** ESI's object pool: equivalent-sphere radius (from the average volume) of 0.02-0.20 m; ours from the model's box. */
const EQUIVALENT_RADIUS_RANGE_M: readonly [number, number] = [0.02, 0.2];
/** Groups of the library that are placeable small objects (ESI drops fixed and reflective categories). */
const PLACEABLE_GROUPS: ReadonlySet<string> = new Set(["fruit", "ball", "kitchen", "toy", "decor", "stationery", "container"]);
/** ESI's MIRROR_MIN_DEPTH / MIRROR_MAX_DEPTH: an object the mirror shows stands this far in front of its plane (m). */
const MIRROR_DEPTH_RANGE_M: readonly [number, number] = [0.55, 1.8];
/** ESI: the reflected ray must hit the mirror within 0.95 of its half width. */
const HIT_HALF_WIDTH_SHARE = 0.95;
/** ESI's OBJECT_REALITY_MIN_MIRROR_DISTANCE_M: a "yes" object stands at least 1.0 m in front of the mirror. */
const AUTHORING_MIN_MIRROR_DEPTH_M = 1.0;
/**
 * ESI's direct-only slots for "no": beside the mirror (|u| ≥ half width + 0.12 m and |depth| ≤ 0.55 m) or farther
 * out than a reflected object (depth ≥ 1.0 + 0.35 m), and more than 2.5 m from the camera.
 */
const DIRECT_ONLY = { sideExtraLateralM: 0.12, sideDepthMaxM: 0.55, fartherExtraDepthM: 0.35, minCameraDistanceM: 2.5 };
/** ESI's minimum separations: 0.35 m from the mirror, 0.26 m between Spatial Relations' two objects. */
const MIN_MIRROR_DISTANCE_M = 0.35;
const PAIR_MIN_SEPARATION_M = 0.26;
/** Correspondence (ESI): the target 1.0-2.0 m out along the reflected viewing ray, the others on a line across it. */
const CORRESPONDENCE = {
  targetDistanceM: [1.0, 2.0] as const,
  middleOffsetM: [0.7, 1.2] as const,
  nearOffsetM: [0.7, 0.95] as const,
  farOffsetMaxM: 1.2,
  farMinGapM: 0.12,
  farMinM: 0.9,
  minSeparationM: 0.3,
  yawJitterDeg: 28,
};
/** Placement draws per question before the scene is redrawn. */
const PLACEMENT_TRIES = 400;
/** Objects keep this clearance (m) from each other and the mirror's frame (ESI's TARGET_CLEARANCE 0.08). */
const CLEARANCE_M = 0.08;
/** The mirror fills at least this share of its own silhouette in the initial view (ESI checks the sightline is clear). */
const INITIAL_MIN_MIRROR_FRACTION = 0.9;
/** ESI's camera FOVs for these tasks (100°, 70°, 100°); the built-in suite renders every task with its one camera. */
const ESI_FOV_DEG = { reflection_authoring: 100, mirror_spatial_relations: 70, mirror_correspondence: 100 };
/** Ground-truth views: orbits around the objects at the suite's usual radii and eye heights (ours). */
const GT_RADII_M = [1.2, 1.8];
const GT_HEIGHTS_M = [0.8, 1.2];

const DEG = Math.PI / 180;
type Xy = readonly [number, number];

/** Equivalent-sphere radius of a model's box: (3V / 4π)^(1/3). */
const equivalentRadius = (model: string): number => {
  const e = buildModel(model).extent;
  return Math.cbrt((3 * e[0] * e[1] * e[2]) / (4 * Math.PI));
};

/** The pool: placeable opaque categories whose every model's equivalent radius lies in ESI's range (the library's, once). */
let pool: string[] | null = null;
function mirrorPool(): string[] {
  return (pool ??= [...LIBRARY.values()]
    .filter(
      (c) =>
        PLACEABLE_GROUPS.has(c.group) &&
        !c.flags.lid &&
        c.models.every(
          (m) => m.palette[0] !== "glass" && equivalentRadius(m.id) >= EQUIVALENT_RADIUS_RANGE_M[0] && equivalentRadius(m.id) <= EQUIVALENT_RADIUS_RANGE_M[1],
        ),
    )
    .map((c) => c.category));
}

interface MirrorSetup {
  mirror: TaskObject;
  frame: TaskObject;
  plane: MirrorRectangle;
  /** facing (unit normal) and tangent in XY */
  normal: Xy;
  tangent: Xy;
  face: Vec3;
  camera: Vec3;
  agent: Pick<Draft, "agent" | "agentLimits">;
  yawPerturbDeg: number;
  lateralM: number;
}

/**
 * A floor mirror within MIRROR_CENTRE_DISTANCE_M of the room centre, facing it turned by up to 30°, and the camera
 * `aheadM` in front of it (a small lateral offset), level, looking at its centre.
 */
function placeMirror(b: SceneBuilder, rng: Rng, aheadM: number): MirrorSetup {
  const paneHeight = 2 * (MIRROR.centreHeightM - MIRROR.bottomM);
  const frameTop = MIRROR.bottomM + paneHeight + MIRROR.frameBorderM;
  const frameWidth = 2 * (MIRROR.halfWidthM + MIRROR.frameBorderM);
  for (let t = 0; t < PLACEMENT_TRIES; t++) {
    const angle = rng.uniform(-Math.PI, Math.PI),
      r = rng.uniform(...MIRROR_CENTRE_DISTANCE_M);
    const x = r * Math.cos(angle),
      y = r * Math.sin(angle);
    const perturb = rng.uniform(-MIRROR_YAW_PERTURB_MAX_DEG, MIRROR_YAW_PERTURB_MAX_DEG);
    const facing = Math.atan2(-y, -x) + perturb * DEG;
    const normal: Xy = [Math.cos(facing), Math.sin(facing)],
      tangent: Xy = [-normal[1], normal[0]];
    const lateral = rng.uniform(-CAMERA_LATERAL_MAX_M, CAMERA_LATERAL_MAX_M);
    // the frame's centre at (x, y); the pane in front of it, its reflective face half its thickness further
    const face: Vec3 = [
      x + normal[0] * (MIRROR.frameDepthM / 2 + MIRROR.thicknessM / 2),
      y + normal[1] * (MIRROR.frameDepthM / 2 + MIRROR.thicknessM / 2),
      MIRROR.centreHeightM,
    ];
    const camera: Vec3 = [face[0] + aheadM * normal[0] + lateral * tangent[0], face[1] + aheadM * normal[1] + lateral * tangent[1], CAMERA_HEIGHT_M];
    if (!b.isClear({ centre: [x, y, frameTop / 2], extent: [MIRROR.frameDepthM + MIRROR.thicknessM, frameWidth, frameTop], yaw: facing }, 0.1)) continue;
    if (!insideRoom(b.room, [camera[0], camera[1]])) continue;
    const frame = b.addBox("mirror_frame", {
      extent: [MIRROR.frameDepthM, frameWidth, round4(frameTop)],
      position: [round4(x), round4(y), round4(frameTop / 2)],
      orientation: quatFromYaw(facing),
      color: "brown",
      role: "furniture",
      support: "floor",
    });
    const mirror = b.addBox(MIRROR_CATEGORY, {
      extent: [MIRROR.thicknessM, 2 * MIRROR.halfWidthM, round4(paneHeight)],
      position: [round4(face[0] - normal[0] * (MIRROR.thicknessM / 2)), round4(face[1] - normal[1] * (MIRROR.thicknessM / 2)), MIRROR.centreHeightM],
      orientation: quatFromYaw(facing),
      color: "grey",
      role: "mirror",
      support: frame.id,
    });
    const agent = initialView(b, camera, [face[0], face[1], CAMERA_HEIGHT_M]);
    return { mirror, frame, plane: mirrorPlane(mirror), normal, tangent, face, camera, agent, yawPerturbDeg: round4(perturb), lateralM: round4(lateral) };
  }
  require(false, "no free spot for the mirror and a camera in front of it");
}

/** Whether a floor point keeps the objects' wall margin (the camera's spot: objects are checked whole by `fits`). */
const insideRoom = (room: Room, p: Xy) => Math.abs(p[0]) <= room.size[0] / 2 - WALL_MARGIN_M && Math.abs(p[1]) <= room.size[1] / 2 - WALL_MARGIN_M;

/** Depth in front of the mirror's plane and position along it (m) of a floor point. */
function mirrorCoordinates(s: MirrorSetup, p: Xy): { depth: number; u: number } {
  const dx = p[0] - s.face[0],
    dy = p[1] - s.face[1];
  return { depth: dx * s.normal[0] + dy * s.normal[1], u: dx * s.tangent[0] + dy * s.tangent[1] };
}

/**
 * ESI's reflection test, in 3D: the object stands MIRROR_DEPTH_RANGE_M in front of the plane and the line from the
 * camera to its mirror image crosses the mirror within 0.95 of its half width (and its height).
 */
function reflectionVisible(s: MirrorSetup, camera: Vec3, centre: Vec3): boolean {
  const d = signedPlaneDistance(s.plane, centre);
  if (d < MIRROR_DEPTH_RANGE_M[0] || d > MIRROR_DEPTH_RANGE_M[1]) return false;
  const shrink = -(1 - HIT_HALF_WIDTH_SHARE) * s.plane.half_width_m;
  return seenThroughMirror(s.plane, camera, reflectPoint(s.plane, centre), 0, shrink);
}

/** Whether a floor spot is free for an object of this model (clearance from every other object, the mirror's frame included). */
function fits(b: SceneBuilder, model: string, p: Xy, yaw: number): boolean {
  const e = buildModel(model).extent;
  return b.isClear({ centre: [p[0], p[1], e[2] / 2], extent: e, yaw }, CLEARANCE_M);
}

/** A random floor point of the room (inside the objects' wall margin). */
function roomPoint(b: SceneBuilder, rng: Rng): Xy {
  const hx = b.room.size[0] / 2 - WALL_MARGIN_M,
    hy = b.room.size[1] / 2 - WALL_MARGIN_M;
  return [rng.uniform(-hx, hx), rng.uniform(-hy, hy)];
}

/** The object's centre once placed at p on the floor. */
const centreAt = (model: string, p: Xy): Vec3 => [p[0], p[1], buildModel(model).extent[2] / 2];

/** The scene common to the three: a room, some wall furniture, the mirror and the camera. */
function mirrorScene(rng: Rng, aheadM: number): { room: Room; b: SceneBuilder; s: MirrorSetup } {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
  return { room, b, s: placeMirror(b, rng, aheadM) };
}

/** Direct and mirror pixel counts of the initial view (the probe's scene and camera). */
const initialCounts = (probe: InitialViewProbe) => directAndReflectedCounts(probe.scene, probe.camera, probe.pose);

/** The mirror shows in the initial view unblocked. */
function mirrorShows(probe: InitialViewProbe, s: MirrorSetup): string | null {
  const f = probe.fraction(s.mirror.id);
  return f >= INITIAL_MIN_MIRROR_FRACTION ? null : `mirror ${Math.round(f * 100)} % visible`;
}

/** Mirror metadata every task records (ESI's scene_setup.mirror and camera). */
function mirrorMetadata(s: MirrorSetup, aheadM: number, fov: number): Record<string, unknown> {
  return {
    mirror_id: s.mirror.id,
    mirror_frame_id: s.frame.id,
    mirror_centre: s.face.map(round4),
    mirror_normal_xy: s.normal.map(round4),
    mirror_tangent_xy: s.tangent.map(round4),
    mirror_half_width_m: MIRROR.halfWidthM,
    mirror_yaw_perturb_deg: s.yawPerturbDeg,
    mirror_yaw_perturb_max_deg: MIRROR_YAW_PERTURB_MAX_DEG,
    camera_ahead_m: aheadM,
    camera_lateral_m: s.lateralM,
    camera_height_m: CAMERA_HEIGHT_M,
    mirror_depth_range_m: MIRROR_DEPTH_RANGE_M,
    esi_fov_deg: fov,
  };
}

/** The draft's scene: the room, its objects (the pane overlaps its frame by design), the light and the initial view. */
function sceneOf(
  rng: Rng,
  room: Room,
  b: SceneBuilder,
  s: MirrorSetup,
): Pick<Draft, "roomType" | "room" | "objects" | "lighting" | "agent" | "agentLimits" | "allowedOverlaps"> {
  return { roomType: "living_room", room, objects: b.objects, lighting: defaultLighting(rng), ...s.agent, allowedOverlaps: [[s.mirror.id, s.frame.id]] };
}

const gtPosesAround = (points: Vec3[]): AgentPose[] => {
  const c: Vec3 = [0, 1, 2].map((k) => points.reduce((a, p) => a + p[k]!, 0) / points.length) as Vec3;
  return orbitPoses(c, GT_RADII_M, GT_HEIGHTS_M);
};

/** ESI's direct-only slot a point is in (depth in front of the mirror, position along it), or null. */
function directOnlyMode(depth: number, u: number): "beside_mirror" | "farther_than_mirror" | null {
  if (Math.abs(u) >= MIRROR.halfWidthM + DIRECT_ONLY.sideExtraLateralM && Math.abs(depth) <= DIRECT_ONLY.sideDepthMaxM) return "beside_mirror";
  return depth >= AUTHORING_MIN_MIRROR_DEPTH_M + DIRECT_ONLY.fartherExtraDepthM ? "farther_than_mirror" : null;
}

/** "an apple", "a mug": ESI's template writes "a" before every name. */
const withArticle = (name: string) => `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;

/** Reflection Authoring (ESI Q.16): is the object seen through the mirror? yes / no at the planned slot. */
export const reflectionAuthoring: Generator = (rng, _ctx, plan): Draft => {
  const { room, b, s } = mirrorScene(rng, CAMERA_AHEAD_M);
  const pool = mirrorPool();
  const category = rng.pick(pool);
  const model = rng.pick(categoryDef(category).models).id;
  const yes = plannedYes(plan);
  let spot: Xy | null = null;
  for (let t = 0; t < PLACEMENT_TRIES && !spot; t++) {
    const p = roomPoint(b, rng);
    const { depth, u } = mirrorCoordinates(s, p);
    if (Math.hypot(p[0] - s.face[0], p[1] - s.face[1]) < MIN_MIRROR_DISTANCE_M || !fits(b, model, p, 0)) continue;
    const inMirror = reflectionVisible(s, s.camera, centreAt(model, p));
    if (yes) {
      if (inMirror && depth >= AUTHORING_MIN_MIRROR_DEPTH_M) spot = p;
    } else if (!inMirror && Math.hypot(p[0] - s.camera[0], p[1] - s.camera[1]) > DIRECT_ONLY.minCameraDistanceM && directOnlyMode(depth, u)) spot = p;
  }
  require(spot, `no ${yes ? "mirror-only" : "direct-only"} spot for the ${category}`);
  const target = b.add(category, { model, x: spot[0], y: spot[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "target" });
  const { depth, u } = mirrorCoordinates(s, spot);
  return {
    ...sceneOf(rng, room, b, s),
    question: `In this image, you can see ${withArticle(displayName(category))}. Are you seeing it through the mirror?`,
    answer: yes ? "yes" : "no",
    answerFormat: "yes_no",
    options: ["yes", "no"],
    relevant: [target.id, s.mirror.id],
    metadata: {
      ...mirrorMetadata(s, CAMERA_AHEAD_M, ESI_FOV_DEG.reflection_authoring),
      target_id: target.id,
      target_category: category,
      target_equivalent_radius_m: round4(equivalentRadius(model)),
      placement_mode: yes ? "mirror" : directOnlyMode(depth, u),
      target_mirror_depth_m: round4(depth),
      target_mirror_u_m: round4(u),
      target_camera_distance_m: round4(Math.hypot(spot[0] - s.camera[0], spot[1] - s.camera[1])),
      pool_size: pool.length,
    },
    // yes: the line from the camera to the object's mirror image crosses the mirror (ESI's reflection test)
    derive: (objects) => {
      const o = objects.find((x) => x.id === target.id)!;
      return reflectionVisible(s, s.camera, o.position) ? "yes" : "no";
    },
    checkInitialView: (probe) => {
      const m = mirrorShows(probe, s);
      if (m) return m;
      const { direct, reflected } = initialCounts(probe);
      const d = direct.get(target.id) ?? 0,
        r = reflected.get(target.id) ?? 0;
      if (yes) return d > 0 ? `the ${category} shows directly (${d} px)` : r < VISIBLE_MIN_PX ? `the ${category} shows ${r} px in the mirror` : null;
      return r > 0 ? `the ${category} shows in the mirror (${r} px)` : d < VISIBLE_MIN_PX ? `the ${category} shows ${d} px directly` : null;
    },
    // what decides it: the object itself, seen directly
    gtGoals: [(v) => isVisible(v, target.id)],
    gtKeyPoses: gtPosesAround([target.position]),
  };
};

/** Spatial Relations (mirror) (ESI Q.17): of two objects the mirror shows, which is closer to the camera, A or B. */
export const mirrorSpatialRelations: Generator = (rng, _ctx, plan): Draft => {
  const { room, b, s } = mirrorScene(rng, CAMERA_AHEAD_M);
  const pool = mirrorPool();
  const categories = rng.sample(pool, 2);
  const models = categories.map((c) => rng.pick(categoryDef(c).models).id);
  const spots: Xy[] = [];
  for (let t = 0; t < PLACEMENT_TRIES && spots.length < 2; t++) {
    const p = roomPoint(b, rng);
    const model = models[spots.length]!;
    if (Math.hypot(p[0] - s.face[0], p[1] - s.face[1]) < MIN_MIRROR_DISTANCE_M || !fits(b, model, p, 0)) continue;
    if (spots.some((q) => Math.hypot(p[0] - q[0], p[1] - q[1]) < PAIR_MIN_SEPARATION_M + CLEARANCE_M)) continue;
    if (!reflectionVisible(s, s.camera, centreAt(model, p))) continue;
    spots.push(p);
    b.add(categories[spots.length - 1]!, { model, x: p[0], y: p[1], yaw: rng.uniform(-Math.PI, Math.PI), role: "target" });
  }
  require(spots.length === 2, "no two spots the mirror shows");
  const placed = b.objects.slice(-2);
  const dist = (o: TaskObject) => Math.hypot(o.position[0] - s.camera[0], o.position[1] - s.camera[1], o.position[2] - s.camera[2]);
  // A is the closer one when the plan puts the answer at A (slot 0); ESI's ties go to A
  const closerFirst = dist(placed[0]!) <= dist(placed[1]!) ? placed : [placed[1]!, placed[0]!];
  const [a, bObj] = plan.slot === 0 ? closerFirst : [closerFirst[1]!, closerFirst[0]!];
  return {
    ...sceneOf(rng, room, b, s),
    question: `In the mirror, you can see two reflected objects: object A (${displayName(a!.category)}) and object B (${displayName(bObj!.category)}). In the real world, which object is closer to the observation position, A or B?`,
    answer: plan.slot === 0 ? "A" : "B",
    answerFormat: "choice",
    options: ["A", "B"],
    relevant: [a!.id, bObj!.id, s.mirror.id],
    metadata: {
      ...mirrorMetadata(s, CAMERA_AHEAD_M, ESI_FOV_DEG.mirror_spatial_relations),
      a_id: a!.id,
      b_id: bObj!.id,
      a_category: a!.category,
      b_category: bObj!.category,
      a_distance_to_observer_m: round4(dist(a!)),
      b_distance_to_observer_m: round4(dist(bObj!)),
      observation_position: s.camera.map(round4),
      pair_min_separation_m: PAIR_MIN_SEPARATION_M,
      pool_size: pool.length,
    },
    // the real positions' 3D distances to the observation position (the initial camera); ties go to A
    derive: (objects) => {
      const oa = objects.find((x) => x.id === a!.id)!,
        ob = objects.find((x) => x.id === bObj!.id)!;
      return dist(oa) <= dist(ob) ? "A" : "B";
    },
    checkInitialView: (probe) => {
      const m = mirrorShows(probe, s);
      if (m) return m;
      const { reflected } = initialCounts(probe);
      for (const o of [a!, bObj!]) {
        const r = reflected.get(o.id) ?? 0;
        if (r < VISIBLE_MIN_PX) return `the ${o.category} shows ${r} px in the mirror`;
      }
      return null;
    },
    // both real objects in one view (ESI's gt views look at the observation position from beside it)
    gtGoals: [(v) => isVisible(v, a!.id) && isVisible(v, bObj!.id)],
    gtKeyPoses: gtPosesAround([a!.position, bObj!.position, s.camera]),
  };
};

/** The image-side order key of a point from the pose: its camera-frame x over depth (left is smaller). */
function imageSide(pose: AgentPose, p: Vec3): number {
  return projectPoint(poseToExtrinsic(pose), { fx: 1, fy: 1, cx: 0, cy: 0 }, p).u;
}

const POSITION_LABELS = ["left", "middle", "right"] as const;

/** Correspondence (ESI Q.18): three identical objects; the one on the reflected viewing ray is the reflected one. */
export const mirrorCorrespondence: Generator = (rng, _ctx, plan): Draft => {
  const { room, b, s } = mirrorScene(rng, CORRESPONDENCE_CAMERA_AHEAD_M);
  const pool = mirrorPool();
  const category = rng.pick(pool);
  const model = rng.pick(categoryDef(category).models).id;
  const radius = equivalentRadius(model);
  const rank = plan.slot;
  // the viewing ray from the camera to the mirror's centre, reflected about the plane (XY)
  const inc: Xy = [s.face[0] - s.camera[0], s.face[1] - s.camera[1]];
  const incN = Math.hypot(inc[0], inc[1]);
  const dn = (inc[0] * s.normal[0] + inc[1] * s.normal[1]) / incN;
  const refl: Xy = [inc[0] / incN - 2 * dn * s.normal[0], inc[1] / incN - 2 * dn * s.normal[1]];
  const across: Xy = [-refl[1], refl[0]];
  let layout: { positions: Xy[]; target: Xy; distance: number; offsets: number[] } | null = null;
  for (let t = 0; t < 16 && !layout; t++) {
    const distance = rng.uniform(...CORRESPONDENCE.targetDistanceM);
    const target: Xy = [s.face[0] + refl[0] * distance, s.face[1] + refl[1] * distance];
    for (const sign of rng.shuffle([-1, 1])) {
      let offsets: number[];
      if (rank === 1) offsets = [-rng.uniform(...CORRESPONDENCE.middleOffsetM), 0, rng.uniform(...CORRESPONDENCE.middleOffsetM)];
      else {
        const near = rng.uniform(...CORRESPONDENCE.nearOffsetM);
        const far = rng.uniform(Math.max(near + CORRESPONDENCE.farMinGapM, CORRESPONDENCE.farMinM), CORRESPONDENCE.farOffsetMaxM);
        offsets = rank === 0 ? [0, near, far] : [-far, -near, 0];
      }
      const positions = offsets.map((o): Xy => [target[0] + sign * across[0] * o, target[1] + sign * across[1] * o]);
      if (!positions.every((p) => fits(b, model, p, 0))) continue;
      const sep = Math.max(CORRESPONDENCE.minSeparationM, 2 * radius);
      if (positions.some((p, i) => positions.some((q, j) => j > i && Math.hypot(p[0] - q[0], p[1] - q[1]) < sep))) continue;
      layout = { positions, target, distance, offsets };
      break;
    }
  }
  require(layout, "no free line for the three objects");
  const color = rng.pick(categoryDef(category).models.find((m) => m.id === model)!.palette);
  const objs = layout.positions.map((p) =>
    b.add(category, { model, color, x: p[0], y: p[1], yaw: rng.uniform(-CORRESPONDENCE.yawJitterDeg, CORRESPONDENCE.yawJitterDeg) * DEG, role: "target" }),
  );
  const targetIndex = layout.offsets.indexOf(0);
  const target = objs[targetIndex]!;
  const pose = s.agent.agent;
  /** The reflected one: the object whose mirror image lies nearest the line from the camera through the mirror's centre. */
  const reflectedOne = (objects: readonly TaskObject[]) => {
    const mine = objs.map((o) => objects.find((x) => x.id === o.id)!);
    const d = [s.face[0] - s.camera[0], s.face[1] - s.camera[1], s.face[2] - s.camera[2]];
    const dl = Math.hypot(d[0]!, d[1]!, d[2]!);
    const off = (o: TaskObject) => {
      const q = reflectPoint(s.plane, o.position);
      const r = [q[0] - s.camera[0], q[1] - s.camera[1], q[2] - s.camera[2]];
      const along = (r[0]! * d[0]! + r[1]! * d[1]! + r[2]! * d[2]!) / dl;
      return Math.sqrt(Math.max(0, r[0]! ** 2 + r[1]! ** 2 + r[2]! ** 2 - along * along));
    };
    return mine.reduce((best, o) => (off(o) < off(best) ? o : best));
  };
  const labelOf = (objects: readonly TaskObject[]) => {
    const mine = objs.map((o) => objects.find((x) => x.id === o.id)!);
    const order = [...mine].sort((p, q) => imageSide(pose, p.position) - imageSide(pose, q.position));
    return POSITION_LABELS[order.indexOf(reflectedOne(objects))]!;
  };
  const answer = labelOf(b.objects);
  const plural = pluralName(category);
  return {
    ...sceneOf(rng, room, b, s),
    question: `You are given an image with a mirror and three ${plural}. Based on the mirror reflection, which of the three ${plural} in the same image corresponds to the reflected one: the left, middle, or right object?`,
    answer,
    answerFormat: "choice",
    options: [...POSITION_LABELS],
    relevant: [...objs.map((o) => o.id), s.mirror.id],
    metadata: {
      ...mirrorMetadata(s, CORRESPONDENCE_CAMERA_AHEAD_M, ESI_FOV_DEG.mirror_correspondence),
      target_id: target.id,
      object_ids: objs.map((o) => o.id),
      shared_category: category,
      shared_model: model,
      target_distance_from_mirror_m: round4(layout.distance),
      line_offsets_m: layout.offsets.map(round4),
      reflected_dir_xy: refl.map(round4),
      pool_size: pool.length,
    },
    derive: labelOf,
    checkInitialView: (probe) => {
      const m = mirrorShows(probe, s);
      if (m) return m;
      const { direct, reflected } = initialCounts(probe);
      for (const o of objs) if ((direct.get(o.id) ?? 0) < VISIBLE_MIN_PX) return `a ${category} shows ${direct.get(o.id) ?? 0} px directly`;
      const r = reflected.get(target.id) ?? 0;
      return r < VISIBLE_MIN_PX ? `the reflected ${category} shows ${r} px in the mirror` : null;
    },
    gtGoals: [(v) => objs.every((o) => isVisible(v, o.id))],
    gtKeyPoses: gtPosesAround(objs.map((o) => o.position)),
  };
};
