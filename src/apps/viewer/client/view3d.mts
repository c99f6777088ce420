/**
 * The 3D view: the cloud (colour by RGB, node, status, confidence or source view), predicted boxes by
 * status, true boxes as dashed wireframes (missed objects filled magenta), camera frustums of the views,
 * a metric floor grid, orbit controls, picking and node highlighting. World frame: Z up, metres (three's
 * camera.up is set to +Z; nothing is converted).
 *
 * Renders on demand (after a camera move or a state change), not every frame: the page stays idle, and
 * stays usable on software WebGL.
 */
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import type { GraphNode } from "../../../../scenegraph/types.js";
import type { StepNodePayload, TrueObjectPayload, Variant, ViewPayload } from "../types.js";
import { MIRROR_COLOR, MISSED_COLOR, nodeColor, statusColor, TRUTH_COLOR, UNASSIGNED_COLOR } from "../palette.js";
import { boxEdges, ghostLinks, mirrorEdges } from "../geometry.js";
import type { DecodedCloud } from "./data.mjs";
import { layoutLabels, type LabelPlacement } from "./labelLayout.mjs";
import { distance, Measure, type PickedPoint } from "./measure.mjs";
import { presetPose, type CameraPreset } from "./cameraPresets.mjs";
import { STATUSES } from "./statuses.mjs";

export type ColorMode = "rgb" | "node" | "status" | "confidence" | "view";
export const COLOR_MODES: Array<{ mode: ColorMode; key: string; label: string }> = [
  { mode: "rgb", key: "r", label: "RGB" },
  { mode: "node", key: "i", label: "node" },
  { mode: "status", key: "s", label: "status" },
  { mode: "confidence", key: "c", label: "confidence" },
  { mode: "view", key: "v", label: "view" },
];

export interface Toggles {
  boxes: boolean;
  truth: boolean;
  frustums: boolean;
  grid: boolean;
  labels: boolean;
}

/** Active episodes: the camera path, the step marker, blocked moves, and the boxes of an intermediate step's graph. */
const PATH_COLOR = 0xf2f2f2;
const CURRENT_COLOR = 0xffe14d;
const BLOCKED_COLOR = 0xff4d4d;
/** An intermediate step's graph has no diagnosis (seconds per step: docs/active.md): boxes in one colour, self-flagged duplicates amber. */
export const STEP_BOX_COLOR: [number, number, number] = [120, 190, 255];
export const STEP_FLAGGED_COLOR: [number, number, number] = [255, 190, 70];
/** Size of the path's step markers (px) and of the blocked-move cross (m). */
const PATH_MARK_PX = 7;
const BLOCKED_CROSS_M = 0.08;

/** What the 3D view shows of an episode at the current step (the tests read it back). */
export interface StepShown {
  step: number;
  /** Boxes drawn for the step's graph (the final graph's boxes at the last step). */
  boxes: number;
  frustums: number;
  points: number;
  path_points: number;
  blocked_marks: number;
}

/** Selected node's points, and its twin's: bright yellow and cyan over the dimmed rest. */
const SELECT_COLOR: [number, number, number] = [255, 225, 77];
const TWIN_COLOR: [number, number, number] = [58, 215, 255];
/** Everything but the selection is multiplied by this, so the selection stands out in any colour mode. */
const DIM_FACTOR = 0.28;
/** Dark grey, not black: black objects (pianos, speakers) stay visible against it. */
const BACKGROUND = 0x2b2f38;
/** Frustum depth (m): visible at room scale without hiding the objects in front of the cameras. */
const FRUSTUM_DEPTH_M = 0.18;
/** Minor floor-grid spacing (m); major lines every metre. */
const MINOR_GRID_M = 0.25;
/** Drawn point size in pixels (no attenuation: the same on screen at every distance); the slider and [ ] change it. */
const DEFAULT_POINT_PX = 2;
export const MIN_POINT_PX = 1;
export const MAX_POINT_PX = 8;
/** A press that moves less than this (px) before release is a click, not an orbit. */
const CLICK_SLOP_PX = 5;
/** Point picking radius on screen (px): a point this close to the cursor is under it (converted to metres at the orbit target's distance). */
const POINT_PICK_PX = 5;
/** Label priorities of the layout (lower first): the selection and the ruler, missed objects, wrong nodes and blocked moves, the rest, grid figures. */
const PRIORITY = { picked: 0, missed: 1, wrong: 2, plain: 3, scale: 5 } as const;
/** Viridis at 5 stops, for confidence. */
const VIRIDIS: Array<[number, number, number]> = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];

function ramp(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x)),
    f = x - i;
  const a = VIRIDIS[i]!,
    b = VIRIDIS[i + 1]!;
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

export function viewColor(index: number, count: number): [number, number, number] {
  const c = new THREE.Color().setHSL((index / Math.max(1, count)) * 0.85, 0.75, 0.55);
  return [c.r * 255, c.g * 255, c.b * 255];
}

const rgbHex = (c: readonly number[]) => (Math.round(c[0]!) << 16) | (Math.round(c[1]!) << 8) | Math.round(c[2]!);

function lines(positions: Float32Array, color: readonly number[], opts: { dashed?: boolean; opacity?: number } = {}): THREE.LineSegments {
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  const common = { color: rgbHex(color), transparent: (opts.opacity ?? 1) < 1, opacity: opts.opacity ?? 1 };
  const m = opts.dashed ? new THREE.LineDashedMaterial({ ...common, dashSize: 0.03, gapSize: 0.02 }) : new THREE.LineBasicMaterial(common);
  const l = new THREE.LineSegments(g, m);
  if (opts.dashed) l.computeLineDistances();
  return l;
}

/** A yaw box as a mesh (for picking, and a translucent fill when highlighted). */
function boxMesh(centre: readonly number[], extent: readonly number[], yaw: number, color: readonly number[], opacity: number): THREE.Mesh {
  const m = new THREE.Mesh(
    new THREE.BoxGeometry(Math.max(extent[0]!, 1e-3), Math.max(extent[1]!, 1e-3), Math.max(extent[2]!, 1e-3)),
    new THREE.MeshBasicMaterial({ color: rgbHex(color), transparent: true, opacity, depthWrite: false }),
  );
  m.position.set(centre[0]!, centre[1]!, centre[2]!);
  m.rotation.z = yaw;
  return m;
}

interface NodeVisual {
  index: number;
  node: GraphNode;
  status: string;
  edges: THREE.LineSegments;
  fill: THREE.Mesh;
  label: HTMLElement;
}

interface Overlay {
  el: HTMLElement;
  at: THREE.Vector3;
  kind: "node" | "truth" | "scale" | "step" | "path" | "ruler";
  node?: number;
}

export interface Selection {
  node: number | null;
  twin: number | null;
}

export class Viewer {
  readonly renderer: THREE.WebGLRenderer;
  readonly camera: THREE.PerspectiveCamera;
  readonly controls: OrbitControls;
  private scene = new THREE.Scene();
  private world = new THREE.Group();
  private points: THREE.Points | null = null;
  private cloud: DecodedCloud | null = null;
  private variant: Variant | null = null;
  private nodes: NodeVisual[] = [];
  private truthGroup = new THREE.Group();
  /** the graph's mirrors, and a line from each mirror ghost to the true object it reflects */
  private mirrorGroup = new THREE.Group();
  private frustumGroup = new THREE.Group();
  private gridGroup = new THREE.Group();
  private frustums: THREE.LineSegments[] = [];
  private pathGroup = new THREE.Group();
  private stepGroup = new THREE.Group();
  private currentMark: THREE.Points | null = null;
  private pathPoints = 0;
  private blockedMarks = 0;
  /** Active episodes: the step shown (1-based), the views it had, and whether it is the last (the stored graph). */
  private step: { step: number; views: number; last: boolean; boxes: number } | null = null;
  private overlays: Overlay[] = [];
  private relationLine: THREE.Line | null = null;
  private colorMode: ColorMode = "rgb";
  private selection: Selection = { node: null, twin: null };
  private hovered: number | null = null;
  private statusFilter = new Set<string>(STATUSES);
  private toggles: Toggles = { boxes: true, truth: true, frustums: true, grid: true, labels: true };
  private pending = false;
  private lastHits: number[] = [];
  private lastHitIndex = 0;
  /** What the framing and the top and front presets show: every node and true object. */
  private sceneBox = new THREE.Box3();
  private readonly measure = new Measure();
  private rulerLabel = document.createElement("div");
  /** Label sizes (px), measured once per label: their text does not change. */
  private labelSize = new WeakMap<HTMLElement, { w: number; h: number }>();
  pointSize = DEFAULT_POINT_PX;
  /** Ruler mode: clicks pick the ruler's ends instead of nodes. */
  measuring = false;
  /** Called when the user picks a node in 3D (null: clicked empty space). */
  onPick: (node: number | null) => void = () => {};
  onHover: (node: number | null, x: number, y: number) => void = () => {};
  /** Called after a click with the cloud point under it (null: none), in either mode. */
  onPoint: (p: PickedPoint | null) => void = () => {};
  /** Called whenever the camera moves (the linked view follows). */
  onCamera: () => void = () => {};

  constructor(
    private readonly container: HTMLElement,
    private readonly labelLayer: HTMLElement,
  ) {
    // every colour here is an sRGB byte triple meant to be shown as is (point RGB from the images, palette
    // colours): no linear-space conversion on the way in or out, or black pianos come out grey
    THREE.ColorManagement.enabled = false;
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.renderer.setClearColor(BACKGROUND);
    container.appendChild(this.renderer.domElement);
    this.camera = new THREE.PerspectiveCamera(50, 1, 0.01, 500);
    this.camera.up.set(0, 0, 1); // Z up, before the controls read it
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => {
      this.requestRender();
      this.onCamera();
    });
    this.scene.add(this.world, this.measure.group);
    this.rulerLabel.className = "label3d ruler";
    this.rulerLabel.dataset.testid = "ruler-label";
    this.world.add(this.gridGroup, this.truthGroup, this.mirrorGroup, this.frustumGroup, this.pathGroup, this.stepGroup);
    new ResizeObserver(() => this.resize()).observe(container);
    this.installPointer();
    this.resize();
  }

  private resize(): void {
    const w = Math.max(1, this.container.clientWidth),
      h = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(w, h, true);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  requestRender(): void {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.renderNow();
    });
  }

  renderNow(): void {
    this.renderer.render(this.scene, this.camera);
    this.placeOverlays();
  }

  private clearWorld(): void {
    const dispose = (o: THREE.Object3D) =>
      o.traverse((x) => {
        const m = x as THREE.Mesh;
        m.geometry?.dispose();
        const mat = m.material as THREE.Material | THREE.Material[] | undefined;
        if (Array.isArray(mat)) mat.forEach((q) => q.dispose());
        else mat?.dispose();
      });
    for (const g of [this.gridGroup, this.truthGroup, this.mirrorGroup, this.frustumGroup, this.pathGroup, this.stepGroup]) {
      dispose(g);
      g.clear();
    }
    for (const n of this.nodes) {
      this.world.remove(n.edges, n.fill);
      dispose(n.edges);
      dispose(n.fill);
    }
    if (this.points) {
      this.world.remove(this.points);
      dispose(this.points);
    }
    if (this.relationLine) this.world.remove(this.relationLine);
    this.relationLine = null;
    this.points = null;
    this.nodes = [];
    this.frustums = [];
    this.currentMark = null;
    this.pathPoints = this.blockedMarks = 0;
    this.step = null;
    this.overlays = [];
    this.labelLayer.replaceChildren(this.rulerLabel);
    this.measure.setPicked(null);
    this.measure.clearRuler();
  }

  setVariant(variant: Variant, cloud: DecodedCloud, truth: TrueObjectPayload[], room: [number, number], keepCamera: boolean): void {
    this.clearWorld();
    this.variant = variant;
    this.cloud = cloud;
    this.selection = { node: null, twin: null };
    // cloud
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(cloud.position, 3));
    g.setAttribute("color", new THREE.BufferAttribute(new Uint8Array(cloud.count * 3), 3, true));
    g.computeBoundingSphere();
    this.points = new THREE.Points(g, new THREE.PointsMaterial({ size: this.pointSize, sizeAttenuation: false, vertexColors: true }));
    this.world.add(this.points);
    // predicted boxes
    const diag = new Map((variant.diagnosis?.nodes ?? []).map((d) => [d.node, d]));
    (variant.graph?.nodes ?? []).forEach((n, index) => {
      const status = diag.get(n.id)?.status ?? "matched";
      const col = statusColor(status);
      const edges = lines(new Float32Array(boxEdges(n.box.centre, n.box.extent, n.box.yaw)), col);
      const fill = boxMesh(n.box.centre, n.box.extent, n.box.yaw, col, 0);
      fill.userData.node = index;
      edges.renderOrder = 2;
      this.world.add(edges, fill);
      const label = document.createElement("div");
      label.className = `label3d status-${status}`;
      label.textContent = `${n.id} ${n.label}`;
      this.labelLayer.appendChild(label);
      this.overlays.push({
        el: label,
        at: new THREE.Vector3(n.box.centre[0], n.box.centre[1], n.box.centre[2] + n.box.extent[2] / 2),
        kind: "node",
        node: index,
      });
      this.nodes.push({ index, node: n, status, edges, fill, label });
    });
    // true boxes: recovered ones dashed grey, missed ones magenta with a fill
    const objStatus = new Map((variant.diagnosis?.objects ?? []).map((o) => [o.id, o.status]));
    for (const o of truth) {
      // without a graph (an active run's 2D arm) nothing was to be recovered: every true box is plain
      const missed = variant.diagnosis !== null && objStatus.get(o.id) !== "matched";
      this.truthGroup.add(
        lines(new Float32Array(boxEdges(o.centre, o.extent, o.yaw)), missed ? MISSED_COLOR : TRUTH_COLOR, { dashed: !missed, opacity: missed ? 1 : 0.7 }),
      );
      if (missed) {
        this.truthGroup.add(boxMesh(o.centre, o.extent, o.yaw, MISSED_COLOR, 0.18));
        const el = document.createElement("div");
        el.className = "label3d missed";
        el.textContent = `missed: ${o.name}`;
        this.labelLayer.appendChild(el);
        this.overlays.push({ el, at: new THREE.Vector3(o.centre[0], o.centre[1], o.centre[2] + o.extent[2] / 2), kind: "truth" });
      }
    }
    // mirrors the graph shows (their rectangles, a tick towards the side they reflect), each mirror ghost joined to
    // the true object it reflects, in the ghost's colour
    for (const m of variant.graph?.mirrors ?? []) this.mirrorGroup.add(lines(new Float32Array(mirrorEdges(m)), MIRROR_COLOR));
    const links = ghostLinks(variant.graph?.nodes ?? [], variant.diagnosis?.nodes ?? [], truth);
    if (links.length) this.mirrorGroup.add(lines(new Float32Array(links), statusColor("mirror_ghost"), { dashed: true }));
    // camera frustums
    variant.views.forEach((v) => {
      const l = lines(frustumLines(v), viewColor(v.index, variant.views.length), { opacity: 0.85 });
      this.frustums.push(l);
      this.frustumGroup.add(l);
    });
    this.buildGrid(room);
    if (variant.episode) this.buildPath(variant);
    this.sceneBox = sceneBoxOf(variant, truth);
    this.applyColors();
    this.applyVisibility();
    if (!keepCamera) this.frame(variant);
    this.requestRender();
  }

  /** The agent's camera path: a polyline through every step's pose, a marker per step, a red cross at each blocked move. */
  private buildPath(variant: Variant): void {
    const steps = variant.episode!.record.active?.steps ?? [];
    const pts = steps.map((s) => new THREE.Vector3(...s.pose.position));
    if (pts.length >= 2) {
      const line = new THREE.Line(
        new THREE.BufferGeometry().setFromPoints(pts),
        new THREE.LineBasicMaterial({ color: PATH_COLOR, depthTest: false, transparent: true, opacity: 0.9 }),
      );
      line.renderOrder = 4;
      this.pathGroup.add(line);
    }
    const marks = new THREE.Points(
      new THREE.BufferGeometry().setFromPoints(pts),
      new THREE.PointsMaterial({ color: PATH_COLOR, size: PATH_MARK_PX, sizeAttenuation: false, depthTest: false }),
    );
    marks.renderOrder = 4;
    this.pathGroup.add(marks);
    this.pathPoints = pts.length;
    const cross: number[] = [];
    steps.forEach((s, k) => {
      if (!s.blocked) return;
      const [x, y, z] = s.pose.position,
        d = BLOCKED_CROSS_M;
      cross.push(x - d, y - d, z, x + d, y + d, z, x - d, y + d, z, x + d, y - d, z);
      const el = document.createElement("div");
      el.className = "label3d blocked";
      el.textContent = `blocked: ${s.action}`;
      this.labelLayer.appendChild(el);
      this.overlays.push({ el, at: pts[k]!.clone(), kind: "path" });
      this.blockedMarks++;
    });
    if (cross.length) {
      const c = lines(new Float32Array(cross), [(BLOCKED_COLOR >> 16) & 255, (BLOCKED_COLOR >> 8) & 255, BLOCKED_COLOR & 255]);
      (c.material as THREE.Material).depthTest = false;
      c.renderOrder = 5;
      this.pathGroup.add(c);
    }
    this.currentMark = new THREE.Points(
      new THREE.BufferGeometry().setFromPoints([pts[0] ?? new THREE.Vector3()]),
      new THREE.PointsMaterial({ color: CURRENT_COLOR, size: PATH_MARK_PX * 2, sizeAttenuation: false, depthTest: false }),
    );
    this.currentMark.renderOrder = 6;
    this.pathGroup.add(this.currentMark);
  }

  /**
   * Shows step k (1-based) of the episode: the points and frustums of the views the agent had, and the
   * boxes of the graph it decided on (`nodes`, null for the 2D arm). The last step shows the stored graph's
   * own boxes, coloured by the diagnosis, which equal the last step's graph.
   */
  setStep(k: number, views: number, nodes: StepNodePayload[] | null, last: boolean): void {
    const v = this.variant;
    if (!v?.episode) return;
    const s = v.episode.record.active!.steps[k - 1]!;
    this.currentMark?.geometry.setFromPoints([new THREE.Vector3(...s.pose.position)]);
    // intermediate step boxes
    const dispose = (o: THREE.Object3D) =>
      o.traverse((x) => ((x as THREE.Mesh).geometry?.dispose(), ((x as THREE.Mesh).material as THREE.Material | undefined)?.dispose()));
    dispose(this.stepGroup);
    this.stepGroup.clear();
    this.overlays = this.overlays.filter((o) => {
      if (o.kind === "step") o.el.remove();
      return o.kind !== "step";
    });
    if (!last && nodes) {
      for (const n of nodes) {
        const col = n.flagged_duplicate ? STEP_FLAGGED_COLOR : STEP_BOX_COLOR;
        this.stepGroup.add(lines(new Float32Array(boxEdges(n.box.centre, n.box.extent, n.box.yaw)), col, { dashed: n.flagged_duplicate }));
        const el = document.createElement("div");
        el.className = "label3d step";
        el.textContent = `${n.id} ${n.label}`;
        this.labelLayer.appendChild(el);
        this.overlays.push({ el, at: new THREE.Vector3(n.box.centre[0], n.box.centre[1], n.box.centre[2] + n.box.extent[2] / 2), kind: "step" });
      }
    }
    this.step = { step: k, views, last, boxes: last ? this.nodes.length : (nodes?.length ?? 0) };
    // only the points of the views the agent had
    if (this.points && this.cloud) {
      const g = this.points.geometry;
      if (views >= v.views.length) g.setIndex(null);
      else {
        const keep: number[] = [];
        for (let i = 0; i < this.cloud.count; i++) if (this.cloud.view[i]! < views) keep.push(i);
        g.setIndex(keep);
      }
    }
    this.applyVisibility();
  }

  /** The ids of the graph's nodes whose boxes are drawn now (the status filter and the boxes toggle applied). */
  boxesShown(): string[] {
    return this.nodes.filter((n) => n.edges.visible).map((n) => n.node.id);
  }

  /** What the episode view shows now (null when the variant has no episode). */
  stepShown(): StepShown | null {
    if (!this.step) return null;
    const g = this.points?.geometry;
    const points = g ? (g.index ? g.index.count : (this.cloud?.count ?? 0)) : 0;
    const boxes = this.step.last ? this.nodes.filter((n) => n.edges.visible).length : this.stepGroup.children.filter((c) => c.visible).length;
    return {
      step: this.step.step,
      boxes: this.toggles.boxes ? boxes : 0,
      frustums: this.frustums.filter((f) => f.visible).length,
      points,
      path_points: this.pathPoints,
      blocked_marks: this.blockedMarks,
    };
  }

  /** Floor grid at z = 0: 1 m major lines, MINOR_GRID_M minor, labelled in metres along one edge. */
  private buildGrid(room: [number, number]): void {
    const size = Math.ceil(Math.max(room[0], room[1])) + 2;
    const half = size / 2;
    const mk = (step: number, color: number, opacity: number) => {
      const pos: number[] = [];
      for (let x = -half; x <= half + 1e-9; x += step) pos.push(x, -half, 0, x, half, 0, -half, x, 0, half, x, 0);
      const l = lines(new Float32Array(pos), [(color >> 16) & 255, (color >> 8) & 255, color & 255], { opacity });
      l.renderOrder = -1;
      return l;
    };
    this.gridGroup.add(mk(MINOR_GRID_M, 0x454b58, 0.6), mk(1, 0x78819a, 0.9));
    const axes = new THREE.AxesHelper(0.5);
    this.gridGroup.add(axes);
    for (let x = -Math.floor(half); x <= Math.floor(half); x++) {
      const el = document.createElement("div");
      el.className = "label3d scale";
      el.textContent = `${x} m`;
      this.labelLayer.appendChild(el);
      this.overlays.push({ el, at: new THREE.Vector3(x, -half, 0), kind: "scale" });
    }
    for (let y = -Math.floor(half); y <= Math.floor(half); y++) {
      if (y === -Math.floor(half)) continue;
      const el = document.createElement("div");
      el.className = "label3d scale";
      el.textContent = `${y} m`;
      this.labelLayer.appendChild(el);
      this.overlays.push({ el, at: new THREE.Vector3(-half, y, 0), kind: "scale" });
    }
  }

  /** Looks at the objects from behind and above the agent's first view, so the layout reads as the question's. */
  private frame(variant: Variant): void {
    const box = this.sceneBox;
    const centre = box.getCenter(new THREE.Vector3());
    const radius = Math.max(0.8, box.getSize(new THREE.Vector3()).length() / 2);
    const dir = new THREE.Vector3(Math.cos(viewYaw(variant)), Math.sin(viewYaw(variant)), 0);
    this.camera.position
      .copy(centre)
      .addScaledVector(dir, -radius * 2.2)
      .add(new THREE.Vector3(0, 0, radius * 1.6));
    this.controls.target.copy(centre);
    this.controls.update();
  }

  /** Top, front, or fit (the selected node's box, else the whole scene): the camera flies there at once. */
  setPreset(preset: CameraPreset): void {
    const sel = preset === "fit" && this.selection.node !== null ? this.nodes[this.selection.node]?.node.box : undefined;
    const box = sel
      ? new THREE.Box3().setFromCenterAndSize(new THREE.Vector3(...sel.centre), new THREE.Vector3(...sel.extent.map((e) => Math.max(e, 1e-3))))
      : this.sceneBox;
    const current = this.controls.target.clone().sub(this.camera.position);
    const pose = presetPose(preset, box, this.camera, this.variant ? viewYaw(this.variant) : 0, current);
    this.setCameraState({ position: pose.position.toArray(), target: pose.target.toArray() });
  }

  /** The camera's position and orbit target (world, m): what the linked view copies. */
  cameraState(): { position: [number, number, number]; target: [number, number, number] } {
    return { position: this.camera.position.toArray(), target: this.controls.target.toArray() };
  }

  setCameraState(s: { position: readonly number[]; target: readonly number[] }): void {
    this.camera.position.set(s.position[0]!, s.position[1]!, s.position[2]!);
    this.controls.target.set(s.target[0]!, s.target[1]!, s.target[2]!);
    this.controls.update();
    // projections and picks right after a preset must not wait for the next frame to see the new camera
    this.camera.updateMatrixWorld();
    this.requestRender();
  }

  /** The canvas with the current frame drawn into it (the drawing buffer is preserved, so it can be read back). */
  snapshot(): HTMLCanvasElement {
    this.renderNow();
    return this.renderer.domElement;
  }

  /** The cloud point nearest the camera within POINT_PICK_PX of a client point, among those drawn; `withNode`: only points of a node. */
  pickPoint(clientX: number, clientY: number, withNode = false): PickedPoint | null {
    if (!this.points || !this.cloud) return null;
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const metresPerPx =
      (2 * this.camera.position.distanceTo(this.controls.target) * Math.tan(THREE.MathUtils.degToRad(this.camera.fov) / 2)) / Math.max(1, rect.height);
    ray.params.Points = { threshold: POINT_PICK_PX * metresPerPx };
    const cloud = this.cloud;
    const hit = ray.intersectObject(this.points, false).find((h) => h.index !== undefined && (!withNode || cloud.node[h.index]! > 0));
    if (!hit || hit.index === undefined) return null;
    const i = hit.index;
    return {
      index: i,
      position: [cloud.position[3 * i]!, cloud.position[3 * i + 1]!, cloud.position[3 * i + 2]!],
      node: cloud.node[i]! > 0 ? cloud.node[i]! - 1 : null,
    };
  }

  /** What is picked: the last clicked point and the ruler's ends (for the panel and the tests). */
  picks(): { point: PickedPoint | null; ruler: PickedPoint[]; distance_m: number | null } {
    const r = this.measure.ruler;
    return { point: this.measure.picked, ruler: [...r], distance_m: r.length === 2 ? distance(r[0]!, r[1]!) : null };
  }

  clearRuler(): void {
    this.measure.clearRuler();
    this.requestRender();
  }

  /** Moves the orbit target to a box and comes closer. */
  focus(centre: readonly number[], extent: readonly number[]): void {
    const c = new THREE.Vector3(centre[0], centre[1], centre[2]);
    const r = Math.max(0.25, Math.hypot(extent[0]!, extent[1]!, extent[2]!) * 1.8);
    const offset = this.camera.position
      .clone()
      .sub(this.controls.target)
      .normalize()
      .multiplyScalar(r * 2);
    this.controls.target.copy(c);
    this.camera.position.copy(c).add(offset);
    this.controls.update();
  }

  setColorMode(mode: ColorMode): void {
    this.colorMode = mode;
    this.applyColors();
  }

  getColorMode(): ColorMode {
    return this.colorMode;
  }

  setSelection(sel: Selection): void {
    this.selection = sel;
    this.applyColors();
    this.applyVisibility();
  }

  setHovered(node: number | null): void {
    if (node === this.hovered) return;
    this.hovered = node;
    this.applyVisibility();
  }

  setToggles(t: Partial<Toggles>): void {
    Object.assign(this.toggles, t);
    this.applyVisibility();
  }

  getToggles(): Toggles {
    return { ...this.toggles };
  }

  setStatusFilter(statuses: Set<string>): void {
    this.statusFilter = new Set(statuses);
    this.applyVisibility();
  }

  getStatusFilter(): Set<string> {
    return new Set(this.statusFilter);
  }

  /** The size the cloud's material draws with (px), read back from three.js. */
  drawnPointSize(): number | null {
    return this.points ? (this.points.material as THREE.PointsMaterial).size : null;
  }

  setPointSize(px: number): void {
    this.pointSize = Math.min(MAX_POINT_PX, Math.max(MIN_POINT_PX, Math.round(px)));
    if (this.points) (this.points.material as THREE.PointsMaterial).size = this.pointSize;
    this.requestRender();
  }

  /** A line between two nodes' box centres (the selected relation); null clears it. */
  showRelation(a: number | null, b: number | null, correct = true): void {
    if (this.relationLine) this.world.remove(this.relationLine);
    this.relationLine = null;
    if (a !== null && b !== null && this.nodes[a] && this.nodes[b]) {
      const p = this.nodes[a]!.node.box.centre,
        q = this.nodes[b]!.node.box.centre;
      const g = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(...p), new THREE.Vector3(...q)]);
      this.relationLine = new THREE.Line(g, new THREE.LineBasicMaterial({ color: correct ? 0x2ecc71 : 0xe74c3c, depthTest: false }));
      this.relationLine.renderOrder = 5;
      this.world.add(this.relationLine);
    }
    this.requestRender();
  }

  private applyColors(): void {
    const cloud = this.cloud,
      variant = this.variant;
    if (!cloud || !variant || !this.points) return;
    const attr = this.points.geometry.getAttribute("color") as THREE.BufferAttribute;
    const out = attr.array as Uint8Array;
    const statusOf = (variant.graph?.nodes ?? []).map((n) => variant.diagnosis?.nodes.find((d) => d.node === n.id)?.status ?? "matched");
    const nViews = variant.views.length;
    const viewCols = variant.views.map((_, k) => viewColor(k, nViews));
    const sel = this.selection.node,
      twin = this.selection.twin;
    const dim = sel !== null ? DIM_FACTOR : 1;
    for (let i = 0; i < cloud.count; i++) {
      const k = cloud.node[i]! - 1;
      let c: readonly number[];
      if (sel !== null && k === sel) c = SELECT_COLOR;
      else if (twin !== null && k === twin) c = TWIN_COLOR;
      else {
        switch (this.colorMode) {
          case "rgb":
            c = [cloud.rgb[3 * i]!, cloud.rgb[3 * i + 1]!, cloud.rgb[3 * i + 2]!];
            break;
          case "node":
            c = k >= 0 ? nodeColor(k) : UNASSIGNED_COLOR;
            break;
          case "status":
            c = k >= 0 ? statusColor(statusOf[k]!) : UNASSIGNED_COLOR;
            break;
          case "confidence":
            c = ramp(cloud.confidence[i]! / 255);
            break;
          case "view":
            c = viewCols[cloud.view[i]!] ?? UNASSIGNED_COLOR;
            break;
        }
        out[3 * i] = c[0]! * dim;
        out[3 * i + 1] = c[1]! * dim;
        out[3 * i + 2] = c[2]! * dim;
        continue;
      }
      out[3 * i] = c[0]!;
      out[3 * i + 1] = c[1]!;
      out[3 * i + 2] = c[2]!;
    }
    attr.needsUpdate = true;
    this.requestRender();
  }

  private applyVisibility(): void {
    const t = this.toggles,
      sel = this.selection;
    const intermediate = this.step !== null && !this.step.last;
    this.stepGroup.visible = t.boxes && intermediate;
    for (const n of this.nodes) {
      const picked = n.index === sel.node || n.index === sel.twin;
      const shown = t.boxes && !intermediate && (this.statusFilter.has(n.status) || picked);
      n.edges.visible = shown;
      n.fill.visible = shown;
      const mat = n.fill.material as THREE.MeshBasicMaterial;
      mat.opacity = picked ? 0.22 : n.index === this.hovered ? 0.12 : 0;
      const em = n.edges.material as THREE.LineBasicMaterial;
      em.color.setHex(n.index === this.hovered && !picked ? 0xffffff : rgbHex(statusColor(n.status)));
      n.label.classList.toggle("picked", picked);
    }
    this.truthGroup.visible = t.truth;
    this.frustumGroup.visible = t.frustums;
    this.gridGroup.visible = t.grid;
    // the selected node's views bright, the others faint
    const views = sel.node !== null ? new Set(this.nodes[sel.node]?.node.views ?? []) : null;
    const twinViews = sel.twin !== null ? new Set(this.nodes[sel.twin]?.node.views ?? []) : null;
    this.frustums.forEach((f, k) => {
      const m = f.material as THREE.LineBasicMaterial;
      const on = !views || views.has(k) || (twinViews?.has(k) ?? false);
      m.opacity = on ? 0.9 : 0.12;
      m.transparent = true;
      // an episode shows the cameras the agent had at its step, the current one brightest
      if (this.step) {
        f.visible = k < this.step.views;
        if (!views) m.opacity = k === this.step.views - 1 ? 1 : 0.35;
      }
    });
    this.requestRender();
  }

  /** Screen position (CSS px, relative to the canvas) of a world point, or null when behind the camera. */
  project(p: readonly number[]): { x: number; y: number } | null {
    this.camera.updateMatrixWorld(); // the camera may have moved since the last frame
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(this.camera);
    if (v.z > 1 || v.z < -1) return null;
    const el = this.renderer.domElement;
    return { x: ((v.x + 1) / 2) * el.clientWidth, y: ((1 - v.y) / 2) * el.clientHeight };
  }

  /** Label priority in the layout (PRIORITY): the picked node's first, grid figures last. */
  private priorityOf(o: Overlay): number {
    if (o.kind === "scale") return PRIORITY.scale;
    if (o.kind === "truth") return PRIORITY.missed;
    if (o.kind === "path") return PRIORITY.wrong;
    if (o.kind === "node" && o.node !== undefined) {
      if (o.node === this.selection.node || o.node === this.selection.twin) return PRIORITY.picked;
      return this.nodes[o.node]!.status === "matched" ? PRIORITY.plain : PRIORITY.wrong;
    }
    return o.kind === "ruler" ? PRIORITY.picked : PRIORITY.plain;
  }

  /** Projects every label that should show and lays them out so that none overlaps another (labelLayout.mts). */
  private placeOverlays(): void {
    const t = this.toggles;
    const el = this.renderer.domElement;
    const w = el.clientWidth,
      h = el.clientHeight;
    const shown: Array<{ o: Overlay; x: number; y: number }> = [];
    const mid = this.measure.labelAt();
    const overlays = mid ? [...this.overlays, { el: this.rulerLabel, at: mid, kind: "ruler" as const }] : this.overlays;
    this.rulerLabel.style.display = "none";
    for (const o of overlays) {
      let visible =
        o.kind === "ruler" ||
        (o.kind === "node" || o.kind === "step"
          ? t.labels && t.boxes && (o.kind === "node" || this.stepGroup.visible)
          : o.kind === "truth"
            ? t.truth && t.labels
            : o.kind === "path"
              ? t.labels && t.frustums
              : t.grid);
      if (visible && o.kind === "node" && o.node !== undefined) {
        const n = this.nodes[o.node]!;
        visible = n.edges.visible;
      }
      const s = visible ? this.project([o.at.x, o.at.y, o.at.z]) : null;
      if (!s || s.x < -40 || s.y < -20 || s.x > w + 40 || s.y > h + 20) {
        o.el.style.display = "none";
        o.el.dataset.layout = "off";
        continue;
      }
      shown.push({ o, x: s.x, y: s.y });
    }
    // measure new labels in one layout pass: show them all, then read every size
    const fresh = shown.filter((s) => !this.labelSize.has(s.o.el));
    for (const s of fresh) s.o.el.style.display = "";
    for (const s of fresh) this.labelSize.set(s.o.el, { w: s.o.el.offsetWidth, h: s.o.el.offsetHeight });
    const placed: LabelPlacement[] = layoutLabels(shown.map((s) => ({ x: s.x, y: s.y, ...this.labelSize.get(s.o.el)!, priority: this.priorityOf(s.o) })));
    shown.forEach((s, i) => {
      const p = placed[i]!;
      s.o.el.dataset.layout = p.state;
      if (p.state === "hidden") {
        s.o.el.style.display = "none";
        return;
      }
      s.o.el.style.display = "";
      s.o.el.style.transform = `translate(${Math.round(p.left)}px, ${Math.round(p.top)}px)`;
    });
  }

  /** Box hits under a client point, nearest first. */
  private hits(clientX: number, clientY: number): number[] {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const fills = this.nodes.filter((n) => n.fill.visible).map((n) => n.fill);
    const out = ray.intersectObjects(fills, false).map((h) => h.object.userData.node as number);
    if (out.length === 0 && !(this.step && !this.step.last)) {
      const p = this.pickPoint(clientX, clientY, true);
      if (p?.node !== null && p?.node !== undefined) out.push(p.node);
    }
    return [...new Set(out)];
  }

  /** Picks at a client point as a click would: repeated clicks on the same spot cycle through overlapping boxes. */
  pickAt(clientX: number, clientY: number): number | null {
    const hits = this.hits(clientX, clientY);
    if (hits.length === 0) {
      this.lastHits = [];
      return null;
    }
    if (hits.join() === this.lastHits.join()) this.lastHitIndex = (this.lastHitIndex + 1) % hits.length;
    else this.lastHitIndex = 0;
    this.lastHits = hits;
    return hits[this.lastHitIndex]!;
  }

  /** A click: the point under it is picked (a ruler end in ruler mode); outside ruler mode it also picks a node. */
  private click(clientX: number, clientY: number): void {
    const p = this.pickPoint(clientX, clientY);
    if (this.measuring) {
      if (p) this.measure.addRulerPoint(p);
      const r = this.measure.ruler;
      this.rulerLabel.textContent = r.length === 2 ? `${distance(r[0]!, r[1]!).toFixed(3)} m` : "";
      this.labelSize.delete(this.rulerLabel);
    } else {
      this.measure.setPicked(p);
      this.onPick(this.pickAt(clientX, clientY));
    }
    this.onPoint(p);
    this.requestRender();
  }

  private installPointer(): void {
    const el = this.renderer.domElement;
    let down: { x: number; y: number } | null = null;
    el.addEventListener("pointerdown", (e) => (down = { x: e.clientX, y: e.clientY }));
    el.addEventListener("pointerup", (e) => {
      if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) < CLICK_SLOP_PX) this.click(e.clientX, e.clientY);
      down = null;
    });
    let queued = false;
    el.addEventListener("pointermove", (e) => {
      if (queued || e.buttons) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const h = this.hits(e.clientX, e.clientY)[0] ?? null;
        this.setHovered(h);
        this.onHover(h, e.clientX, e.clientY);
      });
    });
    el.addEventListener("pointerleave", () => {
      this.setHovered(null);
      this.onHover(null, 0, 0);
    });
  }
}

/** Every node's and true object's box centre, and an episode's camera path: what the default view and the presets frame. */
function sceneBoxOf(variant: Variant, truth: TrueObjectPayload[]): THREE.Box3 {
  const box = new THREE.Box3();
  for (const n of variant.graph?.nodes ?? []) box.expandByPoint(new THREE.Vector3(...n.box.centre));
  for (const o of truth) box.expandByPoint(new THREE.Vector3(...o.centre));
  // an episode's camera path belongs in the picture
  for (const st of variant.episode?.record.active?.steps ?? []) box.expandByPoint(new THREE.Vector3(...st.pose.position));
  if (box.isEmpty()) box.setFromCenterAndSize(new THREE.Vector3(0, 0, 0.5), new THREE.Vector3(2, 2, 1));
  return box;
}

/** The direction of the agent's first view (rad about Z). */
const viewYaw = (variant: Variant): number => variant.graph?.viewpoint.yaw ?? variant.episode?.record.active?.steps[0]?.pose.yaw ?? 0;

/** A view's camera as 8 line segments: centre to the 4 image corners at FRUSTUM_DEPTH_M, and the image rectangle. */
function frustumLines(v: ViewPayload): Float32Array {
  const R = [0, 1, 2].map((r) => [v.E[r]![0]!, v.E[r]![1]!, v.E[r]![2]!]);
  const t = [v.E[0]![3]!, v.E[1]![3]!, v.E[2]![3]!];
  // world = Rᵀ (X_cam - t)
  const toWorld = (x: number, y: number, z: number) => {
    const a = x - t[0]!,
      b = y - t[1]!,
      c = z - t[2]!;
    return [R[0]![0]! * a + R[1]![0]! * b + R[2]![0]! * c, R[0]![1]! * a + R[1]![1]! * b + R[2]![1]! * c, R[0]![2]! * a + R[1]![2]! * b + R[2]![2]! * c];
  };
  const d = FRUSTUM_DEPTH_M;
  const o = toWorld(0, 0, 0);
  const corner = (u: number, w: number) => toWorld(((u - v.K.cx) / v.K.fx) * d, ((w - v.K.cy) / v.K.fy) * d, d);
  const cs = [corner(-0.5, -0.5), corner(v.width - 0.5, -0.5), corner(v.width - 0.5, v.height - 0.5), corner(-0.5, v.height - 0.5)];
  const segs: number[] = [];
  for (let k = 0; k < 4; k++) segs.push(...o, ...cs[k]!, ...cs[k]!, ...cs[(k + 1) % 4]!);
  // a tick on the top edge shows which way is up in the image
  const top = toWorld(((v.width / 2 - v.K.cx) / v.K.fx) * d, ((-0.5 - v.height * 0.12 - v.K.cy) / v.K.fy) * d, d);
  segs.push(...cs[0]!.map((x, i) => (x + cs[1]![i]!) / 2), ...top);
  return new Float32Array(segs);
}
