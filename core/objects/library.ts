/**
 * The built-in object library: 30 small-object categories, 11 furniture categories, a cloth (Deformable), a box lid and a
 * robot (Agent Observation), each built from primitives with distinct shapes and sizes, plus look-alike groups (apple/tomato/peach, mug/cup/can,
 * piano/cabinet, ...) for the recognition and ambiguity tasks.
 *
 * Model geometry depends only on the model id, so any reader can rebuild a task's scene from its record.
 * Meshes are authored with their base at z = 0; `buildModel` recentres them on their box centre.
 */
import type { Vec3 } from "../math/vec.js";
import { box, cylinder, ellipsoid, emptyMesh, handle, meshBounds, openBox, revolve, type PartMesh } from "./mesh.js";
import { buildContainer, type InteriorSpec } from "./interior.js";

type LibraryGroup = "fruit" | "ball" | "kitchen" | "toy" | "decor" | "stationery" | "container" | "furniture" | "textile" | "agent";

interface CategoryFlags {
  /** In the counting pool (ESI Q.19: every box edge <= 0.25 m and not all < 0.05 m; checked by a test). */
  countable?: boolean;
  /** A medium/small object suited to the contact and alignment tasks. */
  tabletop?: boolean;
  /** A transparent, open-topped container (Material Transparency). */
  transparentContainer?: boolean;
  /** Small enough to go inside a glass (Material Transparency's small object). */
  insertable?: boolean;
  /** Chair-like divider (Spatial Segmentation). */
  divider?: boolean;
  /** Tall furniture that can hide a small object behind it (Counting w Occlusion). */
  occluder?: boolean;
  /** A surface other objects stand on (tables, counters). */
  support?: boolean;
  /**
   * View-dependent identity (View Hallucination): seen from `ambiguousAzimuthDeg` (object frame, the
   * direction from the object towards the camera) the distinguishing part is hidden.
   */
  ambiguous?: { ambiguousAzimuthDeg: number; part: string };
  /** An open container: its walls (core/objects/interior.ts), from which the mesh is built and the interior follows. */
  interior?: InteriorSpec;
  /** A box container sized to an object (Rigid Containment, ESI Q.10: packing boxes, toy boxes). */
  rigidContainer?: boolean;
  /** A container one fills with liquid (Liquid Volume, ESI Q.2: mugs, bowls, wineglasses, crock pots, jars). */
  fillable?: boolean;
  /**
   * A moving agent seen in the scene (Agent Observation's navigating robot, ESI's multi-agent task): no object pool
   * draws it (occluder, distractor, look-alike), and the label noise's random categories leave it out, so every
   * other category keeps its index there.
   */
  agent?: boolean;
  /**
   * The lid of a box container (Structural Enclosure, ESI Q.23): a part placed with its box and scaled to it (BOX_LID),
   * never drawn on its own as an occluder, distractor or look-alike.
   */
  lid?: boolean;
}

export interface ModelDef {
  id: string;
  /** Primary colours this model comes in (slot 0). */
  palette: string[];
  secondary?: string;
  accent?: string;
  build: () => PartMesh;
}

export interface CategoryDef {
  category: string;
  group: LibraryGroup;
  confusables: string[];
  flags: CategoryFlags;
  models: ModelDef[];
}

const m = () => emptyMesh();

function sphereModel(r: number, squash = 1): () => PartMesh {
  return () => {
    const g = m();
    ellipsoid(g, [0, 0, r * squash], [r, r, r * squash], 0);
    return g;
  };
}

/** A model built from its category's container spec alone (plus extra parts). */
function containerModel(spec: InteriorSpec, slot: 0 | 3 = 0, extra?: (g: PartMesh) => void): () => PartMesh {
  return () => {
    const g = m();
    buildContainer(g, spec, slot);
    extra?.(g);
    return g;
  };
}

const BOWL: InteriorSpec = { shape: "round", r0: 0.045, r1: 0.075, height: 0.06, wall: 0.006, base: 0 };
const POT: InteriorSpec = { shape: "round", r0: 0.08, r1: 0.08, height: 0.1, wall: 0.005, base: 0 };
const GLASS: InteriorSpec = { shape: "round", r0: 0.038, r1: 0.045, height: 0.13, wall: 0.004, base: 0 };
const JAR: InteriorSpec = { shape: "round", r0: 0.06, r1: 0.055, height: 0.16, wall: 0.005, base: 0 };
const GLASS_BOWL: InteriorSpec = { shape: "round", r0: 0.07, r1: 0.1, height: 0.09, wall: 0.005, base: 0 };
/** A goblet's bowl sits on a 7.8 cm stem and foot: much of its box holds no liquid. */
const GOBLET: InteriorSpec = { shape: "round", r0: 0.03, r1: 0.045, height: 0.09, wall: 0.003, base: 0.078 };
/** Thick stoneware: 2 cm walls and bottom. */
const CROCK_POT: InteriorSpec = { shape: "round", r0: 0.1, r1: 0.1, height: 0.14, wall: 0.02, base: 0 };
const BUCKET: InteriorSpec = { shape: "round", r0: 0.1, r1: 0.13, height: 0.25, wall: 0.004, base: 0 };
const PITCHER: InteriorSpec = { shape: "round", r0: 0.06, r1: 0.055, height: 0.18, wall: 0.004, base: 0 };
const PACKING_BOX: InteriorSpec = { shape: "box", outer: [0.4, 0.3, 0.3], wallFraction: 0.03, bottomFraction: 0.04 };
const TOY_BOX: InteriorSpec = { shape: "box", outer: [0.5, 0.35, 0.3], wallFraction: 0.04, bottomFraction: 0.06 };
const STORAGE_BIN: InteriorSpec = { shape: "box", outer: [0.4, 0.3, 0.25], wallFraction: 0.025, bottomFraction: 0.04 };

/**
 * A box lid at unit scale: a plate the size of a packing box's outer footprint (0.4 x 0.3 m) plus the overhang on
 * every side, with a knob in its middle. The generator scales x and y to its own box (lidScaleFor) and keeps z.
 * Our sizes (household box lids): the overhang covers the wall tops, so that no gap between lid and rim shows
 * the inside; the plate is a stiff board's thickness; the knob is a fingertip grip.
 */
const BOX_LID = {
  /** how far the plate reaches past the box's outer walls on every side (m) */
  overhangM: 0.005,
  /** plate thickness (m): ESI-like lids 1-2 cm */
  thicknessM: 0.015,
  /** the plate at unit scale: a packing box's outer footprint plus the overhang (m) */
  plate: [0.41, 0.31] as const,
  /** knob radius and height (m) */
  knobRadiusM: 0.02,
  knobHeightM: 0.02,
};

/** The robot's category (Agent Observation's navigating robot). */
export const ROBOT_CATEGORY = "robot";
/** The robot's body (Agent Observation): its base radius (m), ours, half of R1's base width. */
const ROBOT_BODY = { baseRadiusM: 0.2 };

/** Per-axis scale of the lid model for a box of outer full size `boxExtent` (m): plate = footprint + 2 x overhang, unit height. */
export function lidScaleFor(boxExtent: readonly number[]): Vec3 {
  return [(boxExtent[0]! + 2 * BOX_LID.overhangM) / BOX_LID.plate[0], (boxExtent[1]! + 2 * BOX_LID.overhangM) / BOX_LID.plate[1], 1];
}

const CATS: CategoryDef[] = [
  // ---- fruit ----
  {
    category: "apple",
    group: "fruit",
    confusables: ["tomato", "peach", "orange"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "apple/0",
        palette: ["red", "green", "yellow"],
        secondary: "brown",
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.036], [0.04, 0.04, 0.036], 0);
          cylinder(g, [0, 0], 0.068, 0.015, 0.003, 0.003, 1, 6);
          return g;
        },
      },
    ],
  },
  {
    category: "tomato",
    group: "fruit",
    confusables: ["apple", "peach", "orange"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "tomato/0",
        palette: ["red"],
        secondary: "green",
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.028], [0.037, 0.037, 0.028], 0);
          cylinder(g, [0, 0], 0.054, 0.005, 0.014, 0.01, 1, 8);
          return g;
        },
      },
    ],
  },
  {
    category: "peach",
    group: "fruit",
    confusables: ["apple", "tomato", "orange"],
    flags: { countable: true, tabletop: true },
    models: [{ id: "peach/0", palette: ["peach"], build: sphereModel(0.038, 0.95) }],
  },
  {
    category: "orange",
    group: "fruit",
    confusables: ["peach", "tennis_ball", "apple"],
    flags: { countable: true, tabletop: true },
    models: [{ id: "orange/0", palette: ["orange"], build: sphereModel(0.042) }],
  },
  {
    category: "lemon",
    group: "fruit",
    confusables: ["lime", "egg", "tennis_ball"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "lemon/0",
        palette: ["yellow"],
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.027], [0.042, 0.028, 0.027], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "lime",
    group: "fruit",
    confusables: ["lemon", "tennis_ball", "apple"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "lime/0",
        palette: ["lime"],
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.027], [0.034, 0.028, 0.027], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "pear",
    group: "fruit",
    confusables: ["apple", "lemon", "peach"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "pear/0",
        palette: ["lime", "yellow"],
        secondary: "brown",
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.036], [0.037, 0.037, 0.036], 0);
          ellipsoid(g, [0, 0, 0.08], [0.022, 0.022, 0.03], 0);
          cylinder(g, [0, 0], 0.105, 0.012, 0.003, 0.002, 1, 6);
          return g;
        },
      },
    ],
  },
  {
    category: "chestnut",
    group: "fruit",
    confusables: ["walnut", "marble"],
    flags: { insertable: true },
    models: [
      {
        id: "chestnut/0",
        palette: ["brown"],
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.011], [0.015, 0.013, 0.011], 0, 8, 12);
          return g;
        },
      },
    ],
  },
  {
    category: "walnut",
    group: "fruit",
    confusables: ["chestnut", "marble"],
    flags: { insertable: true },
    models: [
      {
        id: "walnut/0",
        palette: ["tan"],
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.014], [0.016, 0.016, 0.014], 0, 8, 12);
          return g;
        },
      },
    ],
  },
  {
    category: "egg",
    group: "kitchen",
    confusables: ["lemon", "marble", "tennis_ball"],
    flags: { countable: true, insertable: true },
    models: [
      {
        id: "egg/0",
        palette: ["white", "tan"],
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.029], [0.022, 0.022, 0.029], 0);
          return g;
        },
      },
    ],
  },
  // ---- balls ----
  {
    category: "tennis_ball",
    group: "ball",
    confusables: ["lime", "orange", "lemon"],
    flags: { countable: true, tabletop: true },
    models: [{ id: "tennis_ball/0", palette: ["lime"], build: sphereModel(0.033) }],
  },
  {
    category: "basketball",
    group: "ball",
    confusables: ["soccer_ball", "orange", "pumpkin"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "basketball/0",
        palette: ["orange"],
        secondary: "black",
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.12], [0.12, 0.12, 0.12], 0, 12, 20);
          revolve(
            g,
            0,
            0,
            [
              [0.1215, 0.115],
              [0.1215, 0.125],
            ],
            1,
            { segments: 20 },
          );
          return g;
        },
      },
    ],
  },
  {
    category: "soccer_ball",
    group: "ball",
    confusables: ["basketball", "pumpkin", "orange"],
    flags: { countable: true, tabletop: true },
    models: [{ id: "soccer_ball/0", palette: ["white"], build: sphereModel(0.11) }],
  },
  {
    category: "pumpkin",
    group: "decor",
    confusables: ["basketball", "orange", "soccer_ball"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "pumpkin/0",
        palette: ["orange"],
        secondary: "green",
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.08], [0.12, 0.12, 0.08], 0, 10, 20);
          cylinder(g, [0, 0], 0.155, 0.04, 0.012, 0.009, 1, 8);
          return g;
        },
      },
    ],
  },
  {
    category: "marble",
    group: "toy",
    confusables: ["chestnut", "walnut"],
    flags: { insertable: true },
    models: [{ id: "marble/0", palette: ["blue", "red", "green"], build: sphereModel(0.012) }],
  },
  // ---- kitchen ----
  {
    category: "mug",
    group: "kitchen",
    confusables: ["cup", "can", "jar"],
    flags: { countable: true, tabletop: true, ambiguous: { ambiguousAzimuthDeg: 180, part: "handle" } },
    models: [
      {
        id: "mug/0",
        palette: ["white", "blue", "red", "yellow"],
        build: () => {
          // Handle on +x: seen from -x (azimuth 180 deg) the body hides it and the mug reads as a cup.
          const g = m();
          cylinder(g, [0, 0], 0, 0.1, 0.041, 0.041, 0, 20);
          handle(g, 0.041, 0.05, 0.028, 0.006, 0);
          return g;
        },
      },
    ],
  },
  {
    category: "cup",
    group: "kitchen",
    confusables: ["mug", "can", "bowl"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "cup/0",
        palette: ["white", "red", "teal"],
        build: () => {
          const g = m();
          cylinder(g, [0, 0], 0, 0.095, 0.033, 0.045, 0, 20);
          return g;
        },
      },
    ],
  },
  {
    category: "can",
    group: "kitchen",
    confusables: ["cup", "mug", "bottle"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "can/0",
        palette: ["red", "silver", "green", "blue"],
        secondary: "silver",
        build: () => {
          const g = m();
          cylinder(g, [0, 0], 0, 0.11, 0.033, 0.033, 0, 18);
          cylinder(g, [0, 0], 0.11, 0.008, 0.033, 0.028, 1, 18);
          return g;
        },
      },
    ],
  },
  {
    category: "bottle",
    group: "kitchen",
    confusables: ["can", "vase", "candle"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "bottle/0",
        palette: ["green", "blue", "brown"],
        build: () => {
          const g = m();
          revolve(
            g,
            0,
            0,
            [
              [0.035, 0],
              [0.035, 0.14],
              [0.013, 0.185],
              [0.013, 0.23],
            ],
            0,
            { segments: 18, capBottom: true, capTop: true },
          );
          return g;
        },
      },
    ],
  },
  {
    category: "bowl",
    group: "kitchen",
    confusables: ["cup", "pot", "hat"],
    flags: { countable: true, tabletop: true, interior: BOWL, fillable: true },
    models: [{ id: "bowl/0", palette: ["white", "teal", "cream"], build: containerModel(BOWL) }],
  },
  {
    category: "kettle",
    group: "kitchen",
    confusables: ["pot", "vase", "jar"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "kettle/0",
        palette: ["silver", "red", "black"],
        secondary: "black",
        build: () => {
          const g = m();
          revolve(
            g,
            0,
            0,
            [
              [0.07, 0],
              [0.075, 0.08],
              [0.05, 0.14],
            ],
            0,
            { segments: 20, capBottom: true, capTop: true },
          );
          cylinder(g, [0, 0], 0.14, 0.012, 0.012, 0.012, 1, 8); // lid knob
          handle(g, 0.055, 0.09, 0.035, 0.007, 1); // handle on +x
          box(g, [-0.085, 0, 0.09], [0.05, 0.016, 0.016], 0); // spout on -x
          return g;
        },
      },
    ],
  },
  {
    category: "pot",
    group: "kitchen",
    confusables: ["kettle", "bowl", "jar"],
    flags: { countable: true, tabletop: true, interior: POT, fillable: true },
    models: [
      {
        id: "pot/0",
        palette: ["silver", "black", "red"],
        build: containerModel(POT, 0, (g) => {
          box(g, [0.095, 0, 0.085], [0.035, 0.02, 0.012], 0);
          box(g, [-0.095, 0, 0.085], [0.035, 0.02, 0.012], 0);
        }),
      },
    ],
  },
  // ---- transparent containers (Material Transparency) ----
  {
    category: "glass",
    group: "container",
    confusables: ["jar", "cup", "vase"],
    flags: { transparentContainer: true, interior: GLASS },
    models: [{ id: "glass/0", palette: ["glass"], build: containerModel(GLASS, 3) }],
  },
  {
    category: "jar",
    group: "container",
    confusables: ["glass", "vase", "bottle"],
    flags: { transparentContainer: true, interior: JAR },
    models: [{ id: "jar/0", palette: ["glass"], build: containerModel(JAR, 3) }],
  },
  {
    category: "glass_bowl",
    group: "container",
    confusables: ["bowl", "glass", "jar"],
    flags: { transparentContainer: true, interior: GLASS_BOWL },
    models: [{ id: "glass_bowl/0", palette: ["glass"], build: containerModel(GLASS_BOWL, 3) }],
  },
  // ---- fillable containers (Liquid Volume) ----
  {
    category: "goblet",
    group: "kitchen",
    confusables: ["glass", "vase", "cup"],
    flags: { interior: GOBLET, fillable: true },
    models: [
      {
        id: "goblet/0",
        palette: ["silver", "red", "blue", "teal"],
        build: containerModel(GOBLET, 0, (g) => {
          cylinder(g, [0, 0], 0, 0.008, 0.035, 0.035, 0, 20);
          cylinder(g, [0, 0], 0.008, 0.07, 0.006, 0.006, 0, 10);
        }),
      },
    ],
  },
  {
    category: "crock_pot",
    group: "kitchen",
    confusables: ["pot", "jar", "bowl"],
    flags: { interior: CROCK_POT, fillable: true },
    models: [
      {
        id: "crock_pot/0",
        palette: ["black", "white", "red", "cream"],
        secondary: "black",
        build: containerModel(CROCK_POT, 0, (g) => {
          box(g, [0.11, 0, 0.12], [0.03, 0.06, 0.02], 1);
          box(g, [-0.11, 0, 0.12], [0.03, 0.06, 0.02], 1);
        }),
      },
    ],
  },
  {
    category: "bucket",
    group: "kitchen",
    confusables: ["pot", "jar", "bowl"],
    flags: { interior: BUCKET, fillable: true },
    models: [{ id: "bucket/0", palette: ["blue", "red", "grey", "yellow"], build: containerModel(BUCKET) }],
  },
  {
    category: "pitcher",
    group: "kitchen",
    confusables: ["jar", "mug", "vase"],
    flags: { interior: PITCHER, fillable: true },
    models: [{ id: "pitcher/0", palette: ["white", "blue", "teal", "cream"], build: containerModel(PITCHER, 0, (g) => handle(g, 0.058, 0.1, 0.05, 0.007, 0)) }],
  },
  // ---- box containers (Rigid Containment) ----
  {
    category: "packing_box",
    group: "container",
    confusables: ["cardboard_box", "toy_box", "storage_bin"],
    flags: { interior: PACKING_BOX, rigidContainer: true },
    models: [{ id: "packing_box/0", palette: ["tan", "brown", "white", "grey"], build: containerModel(PACKING_BOX) }],
  },
  {
    category: "toy_box",
    group: "container",
    confusables: ["packing_box", "storage_bin", "cardboard_box"],
    flags: { interior: TOY_BOX, rigidContainer: true },
    models: [{ id: "toy_box/0", palette: ["red", "blue", "yellow", "green", "purple"], build: containerModel(TOY_BOX) }],
  },
  {
    category: "storage_bin",
    group: "container",
    confusables: ["packing_box", "toy_box", "bucket"],
    flags: { interior: STORAGE_BIN, rigidContainer: true, fillable: true },
    models: [{ id: "storage_bin/0", palette: ["blue", "grey", "white", "teal", "green"], build: containerModel(STORAGE_BIN) }],
  },
  // ---- decor / toys / stationery ----
  {
    category: "vase",
    group: "decor",
    confusables: ["bottle", "jar", "candle"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "vase/0",
        palette: ["blue", "white", "teal", "pink"],
        build: () => {
          const g = m();
          revolve(
            g,
            0,
            0,
            [
              [0.04, 0],
              [0.06, 0.08],
              [0.035, 0.18],
              [0.045, 0.22],
            ],
            0,
            { segments: 20, capBottom: true },
          );
          return g;
        },
      },
    ],
  },
  {
    category: "candle",
    group: "decor",
    confusables: ["bottle", "can", "vase"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "candle/0",
        palette: ["white", "cream", "red"],
        secondary: "black",
        build: () => {
          const g = m();
          cylinder(g, [0, 0], 0, 0.15, 0.025, 0.025, 0, 16);
          cylinder(g, [0, 0], 0.15, 0.012, 0.002, 0.002, 1, 6);
          return g;
        },
      },
    ],
  },
  {
    category: "potted_plant",
    group: "decor",
    confusables: ["vase", "lamp", "pot"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "potted_plant/0",
        palette: ["green"],
        secondary: "brown",
        build: () => {
          const g = m();
          cylinder(g, [0, 0], 0, 0.1, 0.05, 0.065, 1, 16);
          ellipsoid(g, [0, 0, 0.165], [0.08, 0.08, 0.075], 0, 8, 14);
          return g;
        },
      },
    ],
  },
  {
    category: "clock",
    group: "decor",
    confusables: ["plate", "bowl", "lamp"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "clock/0",
        palette: ["white", "black", "wood"],
        secondary: "black",
        build: () => {
          // A standing disc clock; the face is along -y.
          const g = m();
          const d = emptyMesh();
          cylinder(d, [0, 0], -0.02, 0.04, 0.1, 0.1, 0, 24);
          for (let i = 0; i < d.tris.length; i += 3) {
            const y = d.tris[i + 1]!,
              z = d.tris[i + 2]!;
            d.tris[i + 1] = z;
            d.tris[i + 2] = y + 0.1;
          }
          g.tris.push(...d.tris);
          g.slots.push(...d.slots);
          box(g, [0, -0.021, 0.13], [0.006, 0.004, 0.06], 1);
          return g;
        },
      },
    ],
  },
  {
    category: "teddy_bear",
    group: "toy",
    confusables: ["toy_dog", "pillow", "doll"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "teddy_bear/0",
        palette: ["brown", "tan", "pink", "white"],
        build: () => {
          const g = m();
          ellipsoid(g, [0, 0, 0.065], [0.06, 0.05, 0.065], 0, 8, 14);
          ellipsoid(g, [0, 0, 0.165], [0.045, 0.045, 0.045], 0, 8, 14);
          ellipsoid(g, [0.032, 0, 0.205], [0.015, 0.01, 0.015], 0, 6, 8);
          ellipsoid(g, [-0.032, 0, 0.205], [0.015, 0.01, 0.015], 0, 6, 8);
          ellipsoid(g, [0.065, -0.01, 0.08], [0.02, 0.02, 0.04], 0, 6, 8);
          ellipsoid(g, [-0.065, -0.01, 0.08], [0.02, 0.02, 0.04], 0, 6, 8);
          return g;
        },
      },
    ],
  },
  {
    category: "toy_car",
    group: "toy",
    confusables: ["toy_truck", "shoe", "cardboard_box"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "toy_car/0",
        palette: ["red", "blue", "yellow", "green"],
        secondary: "black",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.04], [0.2, 0.09, 0.04], 0);
          box(g, [-0.01, 0, 0.077], [0.1, 0.08, 0.035], 0);
          for (const [x, y] of [
            [0.065, 0.047],
            [-0.065, 0.047],
            [0.065, -0.047],
            [-0.065, -0.047],
          ] as Array<[number, number]>) {
            const w = emptyMesh();
            cylinder(w, [0, 0], -0.007, 0.014, 0.02, 0.02, 1, 12);
            for (let i = 0; i < w.tris.length; i += 3) {
              const yy = w.tris[i + 1]!,
                zz = w.tris[i + 2]!;
              w.tris[i] = w.tris[i]! + x;
              w.tris[i + 1] = zz + y;
              w.tris[i + 2] = yy + 0.02;
            }
            g.tris.push(...w.tris);
            g.slots.push(...w.slots);
          }
          return g;
        },
      },
    ],
  },
  {
    category: "toy_truck",
    group: "toy",
    confusables: ["toy_car", "cardboard_box", "shoe"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "toy_truck/0",
        palette: ["yellow", "orange", "blue"],
        secondary: "black",
        build: () => {
          const g = m();
          box(g, [0.055, 0, 0.06], [0.07, 0.1, 0.08], 0);
          openBox(g, [-0.04, 0], 0.025, [0.13, 0.1, 0.06], 0.006, 0);
          box(g, [0.0, 0, 0.015], [0.22, 0.08, 0.02], 1);
          return g;
        },
      },
    ],
  },
  {
    category: "shoe",
    group: "toy",
    confusables: ["toy_car", "slipper", "cardboard_box"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "shoe/0",
        palette: ["black", "white", "brown", "blue"],
        secondary: "white",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.012], [0.24, 0.09, 0.024], 1);
          box(g, [0.04, 0, 0.045], [0.15, 0.085, 0.045], 0);
          box(g, [-0.06, 0, 0.07], [0.09, 0.085, 0.09], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "cardboard_box",
    group: "stationery",
    confusables: ["book", "toy_block", "toy_truck"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "cardboard_box/0",
        palette: ["tan", "brown", "white"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.075], [0.2, 0.15, 0.15], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "book",
    group: "stationery",
    confusables: ["cardboard_box", "notebook", "clock"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "book/0",
        palette: ["red", "blue", "green", "purple", "black"],
        secondary: "cream",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.015], [0.16, 0.23, 0.03], 0);
          box(g, [0.004, 0, 0.015], [0.156, 0.222, 0.024], 1);
          return g;
        },
      },
    ],
  },
  {
    category: "toy_block",
    group: "toy",
    confusables: ["cardboard_box", "dice", "book"],
    flags: { countable: true, tabletop: true },
    models: [
      {
        id: "toy_block/0",
        palette: ["red", "blue", "yellow", "green"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.03], [0.06, 0.06, 0.06], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "dice",
    group: "toy",
    confusables: ["toy_block", "marble"],
    flags: { insertable: true },
    models: [
      {
        id: "dice/0",
        palette: ["white", "red"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.009], [0.018, 0.018, 0.018], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "lamp",
    group: "decor",
    confusables: ["potted_plant", "vase", "candle"],
    flags: { tabletop: true },
    models: [
      {
        id: "lamp/0",
        palette: ["cream", "white", "yellow"],
        secondary: "black",
        build: () => {
          const g = m();
          cylinder(g, [0, 0], 0, 0.02, 0.07, 0.07, 1, 16);
          cylinder(g, [0, 0], 0.02, 0.2, 0.008, 0.008, 1, 8);
          revolve(
            g,
            0,
            0,
            [
              [0.1, 0.2],
              [0.06, 0.32],
            ],
            0,
            { segments: 20 },
          );
          return g;
        },
      },
    ],
  },
  // ---- furniture ----
  {
    category: "table",
    group: "furniture",
    confusables: ["desk", "counter", "bench"],
    flags: { support: true },
    models: [
      {
        id: "table/0",
        palette: ["wood", "darkwood", "white"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.72], [1.2, 0.75, 0.04], 0);
          for (const [x, y] of [
            [0.55, 0.33],
            [-0.55, 0.33],
            [0.55, -0.33],
            [-0.55, -0.33],
          ] as Array<[number, number]>)
            box(g, [x, y, 0.35], [0.05, 0.05, 0.7], 0);
          return g;
        },
      },
      {
        id: "table/1",
        palette: ["wood", "darkwood"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.74], [0.9, 0.9, 0.04], 0);
          for (const [x, y] of [
            [0.4, 0.4],
            [-0.4, 0.4],
            [0.4, -0.4],
            [-0.4, -0.4],
          ] as Array<[number, number]>)
            box(g, [x, y, 0.36], [0.05, 0.05, 0.72], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "chair",
    group: "furniture",
    confusables: ["stool", "armchair", "bench"],
    flags: { divider: true },
    models: [
      {
        id: "chair/0",
        palette: ["wood", "darkwood", "white", "black"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.45], [0.45, 0.45, 0.04], 0);
          for (const [x, y] of [
            [0.2, 0.2],
            [-0.2, 0.2],
            [0.2, -0.2],
            [-0.2, -0.2],
          ] as Array<[number, number]>)
            box(g, [x, y, 0.215], [0.035, 0.035, 0.43], 0);
          box(g, [0, 0.205, 0.7], [0.45, 0.035, 0.46], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "stool",
    group: "furniture",
    confusables: ["chair", "side_table", "bench"],
    flags: { divider: true },
    models: [
      {
        id: "stool/0",
        palette: ["wood", "black", "red"],
        build: () => {
          const g = m();
          cylinder(g, [0, 0], 0.5, 0.04, 0.18, 0.18, 0, 20);
          for (const a of [0, 1, 2, 3]) {
            const t = (Math.PI / 2) * a + Math.PI / 4;
            box(g, [0.13 * Math.cos(t), 0.13 * Math.sin(t), 0.25], [0.03, 0.03, 0.5], 0);
          }
          return g;
        },
      },
    ],
  },
  {
    category: "armchair",
    group: "furniture",
    confusables: ["sofa", "chair", "ottoman"],
    flags: { divider: true },
    models: [
      {
        id: "armchair/0",
        palette: ["blue", "grey", "green", "brown"],
        secondary: "darkwood",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.42], [0.8, 0.75, 0.14], 0);
          box(g, [0, 0.32, 0.7], [0.8, 0.12, 0.5], 0);
          box(g, [0.35, 0, 0.6], [0.1, 0.75, 0.22], 0);
          box(g, [-0.35, 0, 0.6], [0.1, 0.75, 0.22], 0);
          for (const [x, y] of [
            [0.35, 0.32],
            [-0.35, 0.32],
            [0.35, -0.32],
            [-0.35, -0.32],
          ] as Array<[number, number]>)
            box(g, [x, y, 0.175], [0.06, 0.06, 0.35], 1);
          return g;
        },
      },
    ],
  },
  {
    category: "cabinet",
    group: "furniture",
    confusables: ["piano", "wardrobe", "bookshelf"],
    flags: { occluder: true },
    models: [
      {
        id: "cabinet/0",
        palette: ["wood", "white", "darkwood"],
        secondary: "black",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.55], [0.9, 0.45, 1.1], 0);
          box(g, [0.03, -0.23, 0.6], [0.02, 0.02, 0.12], 1);
          box(g, [-0.03, -0.23, 0.6], [0.02, 0.02, 0.12], 1);
          return g;
        },
      },
    ],
  },
  {
    category: "piano",
    group: "furniture",
    confusables: ["cabinet", "wardrobe", "bookshelf"],
    flags: { occluder: true, ambiguous: { ambiguousAzimuthDeg: 90, part: "keyboard" } },
    models: [
      {
        id: "piano/0",
        palette: ["black", "darkwood"],
        secondary: "white",
        accent: "black",
        build: () => {
          // Keyboard on the -y side; from +y (azimuth 90 deg) only the plain back panel shows.
          const g = m();
          box(g, [0, 0.05, 0.6], [1.4, 0.5, 1.2], 0);
          box(g, [0, -0.3, 0.72], [1.3, 0.22, 0.06], 0);
          box(g, [0, -0.3, 0.76], [1.22, 0.15, 0.02], 1);
          box(g, [0, -0.38, 0.36], [1.3, 0.05, 0.05], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "bookshelf",
    group: "furniture",
    confusables: ["cabinet", "wardrobe", "piano"],
    flags: { occluder: true },
    models: [
      {
        id: "bookshelf/0",
        palette: ["wood", "white", "darkwood"],
        build: () => {
          const g = m();
          box(g, [0, 0.17, 0.7], [0.9, 0.02, 1.4], 0);
          box(g, [0.44, 0, 0.7], [0.02, 0.36, 1.4], 0);
          box(g, [-0.44, 0, 0.7], [0.02, 0.36, 1.4], 0);
          for (const z of [0.01, 0.45, 0.9, 1.39]) box(g, [0, 0, z], [0.86, 0.36, 0.02], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "sofa",
    group: "furniture",
    confusables: ["armchair", "bench", "bed"],
    flags: { occluder: true },
    models: [
      {
        id: "sofa/0",
        palette: ["grey", "blue", "brown", "green"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.22], [1.8, 0.85, 0.44], 0);
          box(g, [0, 0.34, 0.65], [1.8, 0.17, 0.5], 0);
          box(g, [0.85, 0, 0.55], [0.1, 0.85, 0.3], 0);
          box(g, [-0.85, 0, 0.55], [0.1, 0.85, 0.3], 0);
          return g;
        },
      },
    ],
  },
  {
    category: "counter",
    group: "furniture",
    confusables: ["cabinet", "table", "desk"],
    flags: { occluder: true, support: true },
    models: [
      {
        id: "counter/0",
        palette: ["white", "wood", "grey"],
        secondary: "darkwood",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.44], [1.4, 0.6, 0.88], 0);
          box(g, [0, 0, 0.9], [1.44, 0.64, 0.04], 1);
          return g;
        },
      },
    ],
  },
  {
    category: "wardrobe",
    group: "furniture",
    confusables: ["cabinet", "bookshelf", "piano"],
    flags: { occluder: true },
    models: [
      {
        id: "wardrobe/0",
        palette: ["wood", "white", "darkwood"],
        secondary: "black",
        build: () => {
          const g = m();
          box(g, [0, 0, 0.9], [1.0, 0.55, 1.8], 0);
          box(g, [0.04, -0.28, 1.0], [0.02, 0.02, 0.2], 1);
          box(g, [-0.04, -0.28, 1.0], [0.02, 0.02, 0.2], 1);
          return g;
        },
      },
    ],
  },
  // ---- textile ----
  {
    // Deformable's cover (core/objects/drape.ts): the model is the flat unit square a record scales by its side
    // ([side, side, 1]); the scene renders the drape computed over what lies under it, or the folded cloth when held.
    // No flag: no other subcategory's pool draws it.
    category: "cloth",
    group: "textile",
    // what a labeller may take a draped cloth for: a lamp's shade (a cone of fabric), a box's outline; neither is an
    // object a cloth covers in Deformable, so a mislabelled drape names no option
    confusables: ["lamp", "cardboard_box"],
    flags: {},
    models: [
      {
        id: "cloth/0",
        palette: ["purple", "pink", "teal", "blue", "grey", "cream"],
        build: () => {
          const g = m();
          box(g, [0, 0, 0.0015], [1, 1, 0.003], 0);
          return g;
        },
      },
    ],
  },
  // ---- parts (last: categories drawn by index keep their order) ----
  {
    category: "box_lid",
    group: "container",
    // flat rectangular boards a detector takes it for
    confusables: ["book", "cardboard_box"],
    flags: { lid: true },
    models: [
      {
        id: "box_lid/0",
        // every box container's colours: a lid takes its box's
        palette: ["tan", "brown", "white", "grey", "red", "blue", "yellow", "green", "purple", "teal"],
        build: () => {
          const g = m();
          const [px, py] = BOX_LID.plate;
          box(g, [0, 0, BOX_LID.thicknessM / 2], [px, py, BOX_LID.thicknessM], 0);
          cylinder(g, [0, 0], BOX_LID.thicknessM, BOX_LID.knobHeightM, BOX_LID.knobRadiusM, BOX_LID.knobRadiusM, 0, 12);
          return g;
        },
      },
    ],
  },
  // ---- agents (after the parts, for the same reason) ----
  {
    category: ROBOT_CATEGORY,
    group: "agent",
    // what a detector takes a tall thin figure on a round base for
    confusables: ["lamp", "stool"],
    flags: { agent: true },
    models: [
      {
        id: `${ROBOT_CATEGORY}/0`,
        palette: ["white", "grey", "orange"],
        secondary: "black",
        accent: "blue",
        build: () => {
          // A mobile robot as tall as ESI's R1 (its box top 1.19 m above the floor in the released Agent
          // Observation records): a round wheeled base, a torso column, a head with a face, one arm. The base's
          // radius keeps two of its positions ESI's observer frame spacing apart (about 0.39 m) from overlapping.
          const g = m();
          cylinder(g, [0, 0], 0, 0.28, ROBOT_BODY.baseRadiusM, ROBOT_BODY.baseRadiusM * 0.9, 0, 24);
          box(g, [0, 0, 0.65], [0.14, 0.12, 0.74], 1);
          box(g, [0, 0, 1.1], [0.22, 0.18, 0.18], 0);
          box(g, [0.115, 0, 1.1], [0.01, 0.12, 0.06], 2);
          box(g, [0.06, -0.08, 0.85], [0.22, 0.04, 0.04], 1);
          return g;
        },
      },
    ],
  },
];

export const LIBRARY: ReadonlyMap<string, CategoryDef> = new Map(CATS.map((c) => [c.category, c]));

/**
 * A unit cube (1 m edges), belonging to no category: proxy renders of imported tasks (bridge/esibench/proxy.ts)
 * scale it to an object's recorded box when the library has no model of the object's category.
 */
export const PROXY_BOX_MODEL = "proxy_box/0";
const PROXY_MODELS: ModelDef[] = [
  {
    id: PROXY_BOX_MODEL,
    palette: ["grey"],
    build: () => {
      const g = m();
      box(g, [0, 0, 0.5], [1, 1, 1], 0);
      return g;
    },
  },
];

const MODELS: ReadonlyMap<string, ModelDef> = new Map([
  ...CATS.flatMap((c) => c.models.map((md) => [md.id, md] as const)),
  ...PROXY_MODELS.map((md) => [md.id, md] as const),
]);

export function categoryDef(category: string): CategoryDef {
  const c = LIBRARY.get(category);
  if (!c) throw new Error(`unknown category "${category}"`);
  return c;
}

/** Whether the library has model `id` (a simulator's own models, e.g. BEHAVIOR-1K's, it does not). */
export function hasModel(id: string): boolean {
  return MODELS.has(id);
}

export function modelDef(id: string): ModelDef {
  const md = MODELS.get(id);
  if (!md) throw new Error(`unknown model "${id}"`);
  return md;
}

export interface BuiltModel {
  /** Triangle soup in the object frame, centred on the box centre. */
  tris: Float32Array;
  slots: Uint8Array;
  /** Full box size in the object frame at unit scale. */
  extent: Vec3;
  /** Where the object frame's origin (the mesh's box centre) lies in the frame the model was built in, unit scale. */
  builtCentre: Vec3;
}

const builtCache = new Map<string, BuiltModel>();

/** Builds a model's mesh (unit scale), recentred so that its box centre is the origin. */
export function buildModel(id: string): BuiltModel {
  const cached = builtCache.get(id);
  if (cached) return cached;
  const part = modelDef(id).build();
  const b = meshBounds(part.tris);
  const c: Vec3 = [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
  const tris = new Float32Array(part.tris.length);
  for (let i = 0; i < part.tris.length; i += 3) {
    tris[i] = part.tris[i]! - c[0];
    tris[i + 1] = part.tris[i + 1]! - c[1];
    tris[i + 2] = part.tris[i + 2]! - c[2];
  }
  const built: BuiltModel = {
    tris,
    slots: Uint8Array.from(part.slots),
    extent: [b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]],
    builtCentre: c,
  };
  builtCache.set(id, built);
  return built;
}
