/**
 * Picked points and the two-point ruler, drawn over everything (no depth test): a white marker at the
 * last picked point, and in ruler mode the two ends in orange joined by a line whose midpoint carries the
 * distance in metres.
 */
import * as THREE from "three";

/** A point of the drawn cloud under the cursor. */
export interface PickedPoint {
  /** Index in the drawn cloud. */
  index: number;
  /** World position (m, Z up). */
  position: [number, number, number];
  /** Index of the node it belongs to in graph.nodes, or null (structure, background, dropped). */
  node: number | null;
}

const PICK_COLOR = 0xffffff;
const RULER_COLOR = 0xff9f1a;
/** Marker size (px, no attenuation). */
const MARK_PX = 9;

export const distance = (a: PickedPoint, b: PickedPoint): number =>
  Math.hypot(a.position[0] - b.position[0], a.position[1] - b.position[1], a.position[2] - b.position[2]);

function marker(color: number): THREE.Points {
  const p = new THREE.Points(
    new THREE.BufferGeometry().setFromPoints([new THREE.Vector3()]),
    new THREE.PointsMaterial({ color, size: MARK_PX, sizeAttenuation: false, depthTest: false }),
  );
  p.renderOrder = 7;
  p.visible = false;
  return p;
}

/** Points change in number, so each update gets a fresh geometry (setFromPoints only rewrites an existing one in place). */
function setPoints(o: THREE.Points | THREE.Line, pts: THREE.Vector3[]): void {
  o.geometry.dispose();
  o.geometry = new THREE.BufferGeometry().setFromPoints(pts);
}

export class Measure {
  readonly group = new THREE.Group();
  private pickMark = marker(PICK_COLOR);
  private ends = marker(RULER_COLOR);
  private line = new THREE.Line(new THREE.BufferGeometry(), new THREE.LineBasicMaterial({ color: RULER_COLOR, depthTest: false }));
  picked: PickedPoint | null = null;
  ruler: PickedPoint[] = [];

  constructor() {
    this.line.renderOrder = 7;
    this.line.visible = false;
    this.group.add(this.pickMark, this.ends, this.line);
  }

  setPicked(p: PickedPoint | null): void {
    this.picked = p;
    this.pickMark.visible = p !== null;
    if (p) setPoints(this.pickMark, [new THREE.Vector3(...p.position)]);
  }

  /** Adds a ruler end; a third point starts a new measurement. */
  addRulerPoint(p: PickedPoint): void {
    this.ruler = this.ruler.length >= 2 ? [p] : [...this.ruler, p];
    this.drawRuler();
  }

  clearRuler(): void {
    this.ruler = [];
    this.drawRuler();
  }

  /** Where the distance label goes (the segment's midpoint), or null without two ends. */
  labelAt(): THREE.Vector3 | null {
    const [a, b] = this.ruler;
    return a && b ? new THREE.Vector3(...a.position).add(new THREE.Vector3(...b.position)).multiplyScalar(0.5) : null;
  }

  private drawRuler(): void {
    const pts = this.ruler.map((p) => new THREE.Vector3(...p.position));
    this.ends.visible = pts.length > 0;
    if (pts.length) setPoints(this.ends, pts);
    this.line.visible = pts.length === 2;
    if (pts.length === 2) setPoints(this.line, pts);
  }

  dispose(): void {
    for (const o of [this.pickMark, this.ends, this.line]) {
      o.geometry.dispose();
      (o.material as THREE.Material).dispose();
    }
  }
}
