/**
 * The `symbolic-2d` reasoner: the offline 2D baseline. It sees only the per-view instance masks in pixel
 * space (view-local ids and categories, design.md "Evidence modes"): no depth, no identity across views.
 * Its programs mirror the 3D ones with image quantities: count = most instances of the category in any
 * one view, size = pixel area, distance = image distance, contact = masks that meet in every view, shape = the
 * floor triangle from apparent sizes, rooms = furniture seen together (regionPrograms2d.ts), a slope = the
 * friction and tilt priors once the board is seen (slopePrior.ts: pixels give no tilt in the world), a stacking
 * order = the labels' shapes, then mask widths (stackingPrograms.ts). It shows
 * honestly what projection loses.
 */
import { collinearityResidual } from "../../core/task/rules.js";
import { colourDistance, namedColorRgb } from "../../core/task/palette.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Evidence } from "../../scenegraph/evidence.js";
import { segmentPixelStats } from "../../scenegraph/segmentStats.js";
import { labelledEvidence } from "../../scenegraph/appearance.js";
import type { LabelMode } from "../../scenegraph/options.js";
import type { Query, Referent } from "./query.js";
import { declined, marginConfidence, nearestOption, optionNaming, programReasoner, type Decision } from "./decision.js";
import type { Reasoner } from "./types.js";
import { interiorFractions } from "../../core/objects/containers.js";
import { buildModel, LIBRARY } from "../../core/objects/library.js";
import { enclosureAnswer, isBoxLabel, isDoorLabel, isLidLabel } from "./enclosurePrograms.js";
import { changeDecision, changeQuestionForm, nearestColoured, nearestNamed, optionColour, type BoxPhases } from "./changePrograms.js";
import type { Intrinsics } from "../../core/math/camera.js";
import { regionProgram2d, type ViewLabels, type ViewPlaces } from "./regionPrograms2d.js";
import { BOARD_CATEGORY, rollsByShape, slopeAnswer, stayChanceUnseenTiltBelow, tippingTiltDeg } from "./slopePrior.js";
import { stackOrder } from "./stackingPrograms.js";
import { mirrorCorrespondence2d, mirrorSpatial2d, reflectionAuthoring2d } from "./mirrorPrograms2d.js";
import { actionOrder2d } from "./actionOrderPrograms.js";
import { agentObservation2d } from "./agentObservationPrograms.js";
import { byDrapeHeight, CLOTH_LABEL, drapeHeightFromAspect, optionCategory } from "./deformablePrograms.js";

/** Image-plane collinearity: residual over the longest side; 0.05 = the 4 cm metric tolerance over a typical 0.8 m span. */
const IMAGE_COLLINEAR_RATIO = 0.05;
/**
 * Floor triangles from apparent sizes err by 10-20 % per side (measured over the suite's grazing views), so
 * the 5 % tolerance of 3D would call nearly every triangle isosceles or random. A triangle is equilateral when
 * its sides spread by at most FLOOR_EQUILATERAL_SPREAD, else isosceles when two sides agree within
 * FLOOR_TRIANGLE_EQUAL_TOL (calibrated on seed "gap2d-cal", not the test seeds).
 */
const FLOOR_EQUILATERAL_SPREAD = 0.25;
const FLOOR_TRIANGLE_EQUAL_TOL = 0.1;

function classifyFloorTriangle(sides: [number, number, number]): { kind: "equilateral" | "isosceles" | "random"; margin: number } {
  const [a, b, c] = [...sides].sort((x, y) => x - y) as [number, number, number];
  const spread = (c - a) / c,
    pair = Math.min(b - a, c - b) / c;
  if (spread <= FLOOR_EQUILATERAL_SPREAD) return { kind: "equilateral", margin: FLOOR_EQUILATERAL_SPREAD - spread };
  if (pair <= FLOOR_TRIANGLE_EQUAL_TOL) return { kind: "isosceles", margin: Math.min(spread - FLOOR_EQUILATERAL_SPREAD, FLOOR_TRIANGLE_EQUAL_TOL - pair) };
  return { kind: "random", margin: Math.min(spread - FLOOR_EQUILATERAL_SPREAD, pair - FLOOR_TRIANGLE_EQUAL_TOL) };
}
/** A mask shorter than this (px) gives no usable size-constancy depth. */
const MIN_MASK_HEIGHT_PX = 4;
/** Masks within this many pixels of each other count as touching. */
const ADJACENT_PX = 2;
/** Contact is judged only from views where both masks have at least this many pixels (ours: a sliver's edge is noise). */
const CONTACT_MIN_MASK_PX = 50;
/** The least score a sighting gives an option when fusing views (ours: one view that misses a class entirely is not proof against it). */
const HALLUCINATION_SCORE_FLOOR = 0.01;
/** A mask covering more than this fraction of the image is a support or backdrop, not the object asked about. */
const BACKDROP_AREA_FRACTION = 0.25;

interface Mask {
  key: number;
  view: number;
  label: string;
  area: number;
  cx: number;
  cy: number;
  bbox: [number, number, number, number];
  rgb: [number, number, number];
  /** the detector's class scores under appearance labels (absent: the label alone) */
  scores?: Record<string, number>;
}

function masksOf(bundle: FrameBundle, ev: Evidence): Mask[][] {
  const perView: Mask[][] = bundle.views.map(() => []);
  // the sums the appearance labels made of the same masks, when they did (scenegraph/segmentStats.ts)
  const { n, sx, sy, r, g, b } = segmentPixelStats(ev, bundle.views);
  for (const s of ev.segments) {
    const k = s.key,
      a = n[k]!;
    if (!a) continue;
    perView[s.view]!.push({
      key: k,
      view: s.view,
      label: s.label ?? "object",
      area: a,
      cx: sx[k]! / a,
      cy: sy[k]! / a,
      bbox: s.bbox,
      rgb: [r[k]! / a, g[k]! / a, b[k]! / a],
      ...(s.scores ? { scores: s.scores } : {}),
    });
  }
  return perView;
}

/** Distinct masks for the referents in one view (best colour match, then the largest mask). */
function resolveInView(masks: Mask[], refs: Referent[]): Array<Mask | null> {
  const used = new Set<number>();
  return refs.map((r) => {
    const want = namedColorRgb(r.color);
    // a referent without a colour (an imported task's) takes the largest mask of its category
    const m =
      masks
        .filter((x) => x.label === r.category && !used.has(x.key))
        .sort((a, b) => (want ? colourDistance(a.rgb, want) - colourDistance(b.rgb, want) : 0) || b.area - a.area)[0] ?? null;
    if (m) used.add(m.key);
    return m;
  });
}

/** The view that shows the most referents (then the most referent pixels); view 0 on ties. */
function bestView(perView: Mask[][], refs: Referent[]): { view: number; masks: Array<Mask | null> } {
  let best = { view: 0, masks: resolveInView(perView[0] ?? [], refs) };
  const score = (ms: Array<Mask | null>) => [ms.filter(Boolean).length, ms.reduce((s, m) => s + (m?.area ?? 0), 0)] as const;
  perView.forEach((masks, view) => {
    const ms = resolveInView(masks, refs);
    const [a, b] = score(ms),
      [c, d] = score(best.masks);
    if (a > c || (a === c && b > d)) best = { view, masks: ms };
  });
  return best;
}

/** Per view, each label's mask pixels: what the Cognitive Mapping programs read. */
function labelAreas(perView: Mask[][]): ViewLabels {
  return perView.map((ms) => {
    const m = new Map<string, number>();
    for (const x of ms) m.set(x.label, (m.get(x.label) ?? 0) + x.area);
    return m;
  });
}

/** Per view, where each label's largest mask stands on the floor (size constancy): what Regional Boundary reads. */
function labelPlaces(perView: Mask[][], bundle: FrameBundle): ViewPlaces {
  return perView.map((ms, v) => {
    const m = new Map<string, readonly [number, number]>();
    for (const x of [...ms].sort((a, b) => b.area - a.area)) {
      if (m.has(x.label)) continue;
      const p = floorPoint(x, bundle.views[v]!.K);
      if (p) m.set(x.label, p);
    }
    return m;
  });
}

const dist = (a: Mask, b: Mask) => Math.hypot(a.cx - b.cx, a.cy - b.cy);

/** A category's height at unit scale in the object library: the size a viewer knows a mug or a vase to have. */
function nominalHeight(label: string): number | null {
  if (!LIBRARY.has(label)) return null;
  return buildModel(`${label}/0`).extent[2];
}

/**
 * Where a mask's object stands on the floor, in the camera's frame (x right, z forward), from size
 * constancy: depth z = f·H/h for the label's nominal height H and the mask's height h in pixels, and
 * x = (u − cx)·z/f. The focal length is the image's own (as a photo's EXIF records it). No depth map is read:
 * this is the perspective cue a viewer of one photo has, and it errs as the label, the model's scale and
 * occlusion of the mask's top or bottom do.
 */
function floorPoint(m: Mask, K: Intrinsics): [number, number] | null {
  const H = nominalHeight(m.label);
  const h = m.bbox[3] - m.bbox[1] + 1;
  if (H === null || h < MIN_MASK_HEIGHT_PX) return null;
  const z = (K.fy * H) / h;
  return [((m.cx - K.cx) * z) / K.fx, z];
}

const floorDist = (a: [number, number], b: [number, number]) => Math.hypot(a[0] - b[0], a[1] - b[1]);

function adjacent(ev: Evidence, a: Mask, b: Mask): boolean {
  const W = ev.width,
    H = ev.height,
    map = ev.segmentOfPixel[a.view]!;
  const [x0, y0, x1, y1] = a.bbox;
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      if (map[y * W + x] !== a.key) continue;
      for (let dy = -ADJACENT_PX; dy <= ADJACENT_PX; dy++)
        for (let dx = -ADJACENT_PX; dx <= ADJACENT_PX; dx++) {
          const xx = x + dx,
            yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < W && yy < H && map[yy * W + xx] === b.key) return true;
        }
    }
  return false;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** The mask labels the 2D baseline reads: the same label evidence as the 3D arms (scenegraph/appearance.ts). */
export interface Symbolic2dOptions {
  labels: LabelMode;
  labelSeed: string;
}

function decide2d(bundle: FrameBundle, q: Query, o: Symbolic2dOptions): Decision {
  const ev = labelledEvidence(bundle, "instance", o.labels, o.labelSeed);
  const perView = masksOf(bundle, ev);
  const imageArea = ev.width * ev.height;
  const trace: string[] = [];
  const fallback = (why: string) => declined(why, trace);
  const opt = (text: string) => optionNaming(q.options, text);
  // Agent Observation: each phase's masks on the floor (size constancy), the robot's among them
  if (q.subcategory === "agent_observation")
    return agentObservation2d(
      perView.map((ms, v) => ({
        phase: bundle.manifest.views[v]?.phase ?? v,
        fromStart: bundle.manifest.views[v]?.action === null,
        masks: ms.map((m) => ({ label: m.label, place: floorPoint(m, bundle.views[v]!.K) })),
      })),
      q,
      trace,
    );
  if (q.answer_format === "integer") {
    const cat = q.countCategory!;
    const counts = perView.map((ms) => ms.filter((m) => m.label === cat).length);
    const best = Math.max(0, ...counts);
    trace.push(`most ${cat} masks in one view: ${best} (view ${counts.indexOf(best)})`);
    if (q.subcategory === "structural_enclosure") {
      // a lid's mask is a closed box (masks cannot tell a lid on its box from one lifted beside it); each seen target
      // fills one box (ESI puts one or none in each), the rest of the closed boxes are unknown
      const closed = Math.max(0, ...perView.map((ms) => ms.filter((m) => isLidLabel(m.label) || isDoorLabel(m.label)).length));
      const d = enclosureAnswer(q.options, best, Math.max(0, closed - best));
      trace.push(`most lid or door masks in one view: ${closed}`, d.trace);
      return { answer: d.answer, confidence: d.confidence, trace };
    }
    const answer = nearestOption(q.options, best);
    return { answer, confidence: Number(answer) === best ? 0.75 : 0.5, trace };
  }
  if (q.subcategory === "inclined_plane") {
    // masks show the board, not its tilt in the world (no depth, no pose); the object's label and its mask's
    // aspect (a side view's width over height) are shape, which the tilt's prior then weighs
    const seen = perView.findIndex((ms) => ms.some((m) => m.label === BOARD_CATEGORY));
    if (seen < 0) return fallback(`no view shows the ${BOARD_CATEGORY}`);
    const objectRefs = q.referents.filter((r) => r.category !== BOARD_CATEGORY);
    const { view, masks } = bestView(perView, objectRefs);
    const m = masks[0];
    if (!m) return fallback(`no view shows ${objectRefs[0]?.name ?? "the object"}`);
    if (rollsByShape(m.label)) {
      trace.push(`the ${BOARD_CATEGORY} is seen (view ${seen}); view ${view}: mask ${m.key} (${m.label}) has no flat bottom, it rolls`);
      return { ...slopeAnswer(0), trace };
    }
    const tips = tippingTiltDeg(m.bbox[2] - m.bbox[0] + 1, m.bbox[3] - m.bbox[1] + 1);
    const chance = stayChanceUnseenTiltBelow(tips);
    trace.push(
      `the ${BOARD_CATEGORY} is seen (view ${seen}), its tilt is not measured in pixels; view ${view}: mask ${m.key} (${m.label}) tips past ${tips.toFixed(1)} deg ` +
        `(its aspect); friction unseen: P(stays) = ${chance.toFixed(3)} over ESI's tilt U[10, 45] deg and static friction U[0.3, 3.0]`,
    );
    return { ...slopeAnswer(chance), trace };
  }
  const rooms = regionProgram2d(q.subcategory);
  if (rooms) return rooms(labelAreas(perView), q, trace, labelPlaces(perView, bundle));
  if (q.subcategory === "stacking_stability") return stacking2d(perView, q, trace);
  if (q.subcategory === "deformable") return deformable2d(perView, q, trace);
  if (q.subcategory === "unobserved_change") return unobservedChange2d(perView, bundle, q, trace);
  // Specular Reflection: the question's image (view 0) and its masks
  if (q.subcategory === "reflection_authoring") return reflectionAuthoring2d(perView[0] ?? [], q, trace);
  if (q.subcategory === "mirror_spatial_relations") return mirrorSpatial2d(perView[0] ?? [], bundle.views[0]!.K, q, trace);
  if (q.subcategory === "mirror_correspondence") return mirrorCorrespondence2d(perView[0] ?? [], bundle.views[0]!.K, q, trace);
  // Action Order: the relations are the question's image's (view 0)
  if (q.subcategory === "action_order_inference") return actionOrder2d(perView[0] ?? [], q, trace);
  const { view, masks } = bestView(perView, q.referents);
  const K = bundle.views[view]!.K;
  trace.push(
    `view ${view}: ${q.referents.map((r, i) => `${r.name} -> ${masks[i] ? `mask ${masks[i]!.key} (${masks[i]!.area} px)` : "not visible"}`).join("; ")}`,
  );
  const all = (n: number) => masks.slice(0, n).every(Boolean);
  switch (q.subcategory) {
    case "geometric_configuration": {
      if (!all(3)) return fallback("not all three objects are visible in one view");
      const pts = (masks as Mask[]).map((m) => floorPoint(m, K));
      if (pts.some((p) => p === null)) return fallback("a mask gives no floor position (no nominal size, or too small)");
      const [a, b, c] = pts as Array<[number, number]>;
      const sides: [number, number, number] = [floorDist(b!, c!), floorDist(c!, a!), floorDist(a!, b!)];
      const { kind, margin } = classifyFloorTriangle(sides);
      trace.push(`floor sides from apparent sizes ${sides.map((x) => x.toFixed(2)).join(", ")} m -> ${kind}`);
      return { answer: kind, confidence: marginConfidence(margin, FLOOR_TRIANGLE_EQUAL_TOL), trace };
    }
    case "linear_alignment": {
      if (masks.length < 3 || !all(masks.length)) return fallback("not all the objects are visible in one view");
      const pts = (masks as Mask[]).map((m) => [m.cx, m.cy] as [number, number]);
      const longest = Math.max(...pts.flatMap((p) => pts.map((q2) => Math.hypot(p[0] - q2[0], p[1] - q2[1]))).concat(1));
      const ratio = collinearityResidual(pts) / longest;
      trace.push(`image residual / span = ${ratio.toFixed(3)} (collinear <= ${IMAGE_COLLINEAR_RATIO})`);
      return {
        answer: ratio <= IMAGE_COLLINEAR_RATIO ? "yes" : "no",
        confidence: marginConfidence(Math.abs(ratio - IMAGE_COLLINEAR_RATIO), IMAGE_COLLINEAR_RATIO),
        trace,
      };
    }
    case "physical_contact": {
      if (!all(2)) return fallback("the two objects are not both visible in one view");
      // touching objects meet in every view that shows both; one view with daylight between the masks is a gap
      // (a view along the gap axis hides it, so the views are read together, as a viewer of them all would)
      const pairs = perView
        .map((ms) => resolveInView(ms, q.referents.slice(0, 2)))
        .filter((p): p is [Mask, Mask] => p.every((m) => m !== null && m.area >= CONTACT_MIN_MASK_PX));
      const apart = pairs.filter(([a, b]) => !adjacent(ev, a, b)).length;
      trace.push(`${pairs.length} view(s) show both (masks of ${CONTACT_MIN_MASK_PX}+ px): ${apart} with the masks apart (more than ${ADJACENT_PX} px)`);
      if (pairs.length === 0) {
        const touching = adjacent(ev, masks[0]!, masks[1]!);
        trace.push(`view ${view}: masks ${touching ? "adjacent" : "apart"}`);
        return { answer: touching ? "yes" : "no", confidence: 0.5, trace };
      }
      return { answer: apart > 0 ? "no" : "yes", confidence: apart > 0 ? 0.7 : pairs.length > 1 ? 0.6 : 0.5, trace };
    }
    case "material_transparency": {
      const [c, o] = masks;
      if (!c) return fallback("the container is not visible");
      if (!o) {
        trace.push("the object is not visible in any mask");
        return { answer: "no", confidence: 0.5, trace };
      }
      const inside = o.cx >= c.bbox[0] && o.cx <= c.bbox[2] && o.cy >= c.bbox[1] && o.cy <= c.bbox[3];
      trace.push(`object centre ${inside ? "inside" : "outside"} the container's box in the image`);
      return { answer: inside ? "yes" : "no", confidence: 0.6, trace };
    }
    case "spatial_distance": {
      const [ref, ...objs] = masks;
      if (!ref) return fallback("the reference is not visible");
      const scored = q.referents
        .slice(1)
        .map((r, i) => ({ name: r.name, d: objs[i] ? dist(objs[i]!, ref) : Infinity }))
        .sort((a, b) => a.d - b.d);
      scored.forEach((s) => trace.push(`${s.name}: ${Number.isFinite(s.d) ? r1(s.d) + " px" : "not visible"} from the reference`));
      const a = opt(scored[0]!.name);
      return a
        ? {
            answer: a,
            confidence: marginConfidence(scored[1] && Number.isFinite(scored[1].d) && scored[0]!.d > 0 ? scored[1].d / scored[0]!.d - 1 : 1, 0.3),
            trace,
          }
        : fallback("no option names the nearer object");
    }
    case "dimensional_size": {
      const objCat = q.referents.find((r) => r.role === "target")!.category;
      const refs = q.referents.filter((r) => r.role === "reference");
      const vMasks = perView[view]!;
      const copies = vMasks
        .filter((m) => m.label === objCat)
        .sort((a, b) => b.area - a.area)
        .slice(0, 2);
      if (copies.length < 2) return fallback(`two ${objCat} masks are not visible in one view`);
      const bigger = !/smaller/.test(q.question);
      const target = bigger ? copies[0]! : copies[1]!;
      const refMasks = resolveInView(vMasks, refs);
      const d = refMasks.map((m) => (m ? dist(m, target) : Infinity));
      const k = d.indexOf(Math.min(...d));
      trace.push(
        `areas ${copies.map((c) => c.area).join(", ")} px; ${bigger ? "bigger" : "smaller"} -> mask ${target.key}; nearest reference ${refs[k]!.name}`,
      );
      const a = opt(refs[k]!.category);
      return a
        ? { answer: a, confidence: marginConfidence(copies[0]!.area / Math.max(1, copies[1]!.area) - 1, 0.5), trace }
        : fallback("no option names the reference");
    }
    case "partial_occlusion": {
      const occ = masks[0];
      if (!occ) return fallback("the occluder is not visible");
      const others = perView[view]!.filter((m) => m.key !== occ.key && m.area < BACKDROP_AREA_FRACTION * imageArea).sort((a, b) => dist(a, occ) - dist(b, occ));
      if (!others[0]) return fallback("nothing is visible next to the occluder");
      trace.push(`mask next to the occluder: ${others[0].label}`);
      return opt(others[0].label) ? { answer: opt(others[0].label)!, confidence: 0.75, trace } : fallback(`no option for ${others[0].label}`);
    }
    case "view_hallucination": {
      // the object asked about is the one in front of the viewer: in each view, the mask labelled with an
      // option nearest the image centre (view 0 is where the question is asked; the later views of a walk keep
      // the object in view). The sightings' scores are fused as independent evidence (summed log-scores), as
      // the graph's soft votes fuse a node's views
      const cx = (ev.width - 1) / 2,
        cy = (ev.height - 1) / 2;
      // (an option's label is never the room's floor or walls, so a mask filling the view, a piano close up, counts)
      const sightingOf = (ms: Mask[]) => ms.filter((m) => opt(m.label)).sort((a, b) => Math.hypot(a.cx - cx, a.cy - cy) - Math.hypot(b.cx - cx, b.cy - cy))[0];
      const first = sightingOf(perView[0] ?? []);
      if (!first) return fallback("no object named by an option in the first view");
      trace.push(`view 0: the option-labelled mask nearest the image centre reads ${first.label}`);
      const sightings = [
        first,
        ...perView
          .slice(1)
          .map(sightingOf)
          .filter((m): m is Mask => m !== undefined),
      ];
      const logScore = new Map(q.options.map((o) => [o, 0]));
      for (const m of sightings)
        for (const o of q.options) {
          const s = m.scores ? (m.scores[o] ?? m.scores[o.replace(/ /g, "_")] ?? 0) : opt(m.label) === o ? 1 : 0;
          logScore.set(o, logScore.get(o)! + Math.log(Math.max(HALLUCINATION_SCORE_FLOOR, s)));
        }
      const ranked = [...logScore].sort((a, b) => b[1] - a[1]);
      trace.push(`${sightings.length} sighting(s) fused: ${ranked.map(([o, l]) => `${o} ${l.toFixed(2)}`).join(", ")} (summed log-scores)`);
      return { answer: ranked[0]![0], confidence: marginConfidence(ranked[0]![1] - (ranked[1]?.[1] ?? -Infinity), Math.log(2) * sightings.length), trace };
    }
    case "rigid_containment": {
      if (!all(q.referents.length)) return fallback("the object and every container are not all visible in one view");
      const [obj, ...boxes] = masks as Mask[];
      const size = (m: Mask) => [m.bbox[2] - m.bbox[0] + 1, m.bbox[3] - m.bbox[1] + 1] as const;
      const [ow, oh] = size(obj!);
      // the container's mask shrunk by its label's wall fraction: the opening, as the image shows it
      const fits = boxes.map((m) => {
        const f = interiorFractions(m.label)?.horizontal;
        const [w, h] = size(m);
        return f === undefined ? null : { fits: ow <= w * f && oh <= h * f, area: m.area };
      });
      if (fits.some((f) => f === null)) return fallback("a container's label has no wall model");
      boxes.forEach((m, k) =>
        trace.push(`${q.referents[k + 1]!.name}: mask ${size(m).join(" x ")} px, ${fits[k]!.fits ? "fits" : "too small"} for ${ow} x ${oh} px`),
      );
      const best = fits
        .map((f, k) => ({ ...f!, k }))
        .filter((f) => f.fits)
        .sort((a, b) => a.area - b.area)[0];
      if (!best) return fallback("the object fits none of the containers in the image");
      const a = opt(q.referents[best.k + 1]!.name.replace(/^the /, ""));
      return a ? { answer: a, confidence: 0.6, trace } : fallback("no option names the container");
    }
    case "liquid_volume": {
      if (!all(2)) return fallback("the two containers are not both visible in one view");
      // image volume: width^2 x height of the mask's box, times the label's interior share of its box
      const vol = (masks as Mask[]).slice(0, 2).map((m) => {
        const f = interiorFractions(m.label)?.volume;
        const w = m.bbox[2] - m.bbox[0] + 1,
          h = m.bbox[3] - m.bbox[1] + 1;
        return f === undefined ? null : w * w * h * f;
      });
      if (vol.some((v) => v === null)) return fallback("a container's label has no wall model");
      const [va, vb] = vol as [number, number];
      trace.push(`image interiors ${Math.round(va)} vs ${Math.round(vb)} px^3`);
      const a = opt(q.referents[va >= vb ? 0 : 1]!.name.replace(/^the /, ""));
      return a
        ? { answer: a, confidence: marginConfidence(Math.max(va, vb) / Math.max(1, Math.min(va, vb)) - 1, 0.5), trace }
        : fallback("no option names the container");
    }
    default:
      return fallback(`no 2D program for ${q.subcategory}`);
  }
}

/**
 * Stacking & Stability from the masks: the view that shows the most items (the question's options, by label), each
 * item's label and its mask's width in that view as its footprint; the order as the 3D arm's (stackingPrograms.ts).
 */
function stacking2d(perView: Mask[][], q: Query, trace: string[]): Decision {
  const refs: Referent[] = q.options.map((item) => ({ category: item, color: "", name: item, role: "target" }));
  const { view, masks } = bestView(perView, refs);
  const missing = q.options.find((_, i) => !masks[i]);
  if (missing !== undefined) return declined(`${missing} is not visible in view ${view} with the other items`, trace);
  trace.push(`view ${view}: ${q.options.map((item, i) => `${item} -> mask ${masks[i]!.key}`).join("; ")}`);
  return stackOrder(
    (masks as Mask[]).map((m, i) => ({ item: q.options[i]!, label: m.label, footprint: m.bbox[2] - m.bbox[0] + 1 })),
    trace,
  );
}

/**
 * Deformable (deformablePrograms.ts): a mask of an option's category in any view (the cloth lifted) is the answer;
 * else the cloth's mask in the initial view, its aspect read as a drape height (drapeHeightFromAspect).
 */
function deformable2d(perView: Mask[][], q: Query, trace: string[]): Decision {
  const seen = perView
    .flat()
    .filter((m) => q.options.some((o) => optionCategory(o) === m.label))
    .sort((a, b) => b.area - a.area)[0];
  if (seen) {
    trace.push(`view ${seen.view}: mask ${seen.key} (${seen.label}, ${seen.area} px): the object the cloth covered, seen`);
    return { answer: optionNaming(q.options, seen.label) ?? seen.label, confidence: 0.75, trace };
  }
  const cloth = (perView[0] ?? []).filter((m) => m.label === CLOTH_LABEL).sort((a, b) => b.area - a.area)[0];
  if (!cloth) return declined(`the initial view shows no ${CLOTH_LABEL} and no view an option's object`, trace);
  const aspect = (cloth.bbox[3] - cloth.bbox[1] + 1) / (cloth.bbox[2] - cloth.bbox[0] + 1);
  trace.push(`view 0: mask ${cloth.key} (${CLOTH_LABEL}) aspect ${aspect.toFixed(3)} (height / width, px)`);
  return byDrapeHeight(q.options, drapeHeightFromAspect(aspect), trace, `mask ${cloth.key}`);
}

const withinBox = (m: Mask, box: Mask) =>
  m.cx >= box.bbox[0] && m.cx <= box.bbox[2] && m.cy >= box.bbox[1] - (box.bbox[3] - box.bbox[1]) && m.cy <= box.bbox[3];

/**
 * Unobserved Change from the masks (changePrograms.ts). Masks cannot tell a lid resting on its box from one swung up
 * behind it (both border the box's top edge in the image), so a box counts as seen into from the views after the views'
 * own `open` action in that phase: the box opened is the largest box mask of the view the act was taken from not
 * opened yet in that phase (the hands reach only what is near; an open box does not open again), named by its colour when the options name colours. What a box holds in a phase: the
 * masks of other objects whose centre lies within its outline (or above it, looking down into it) in those views.
 */
function unobservedChange2d(perView: Mask[][], bundle: FrameBundle, q: Query, trace: string[]): Decision {
  const phaseOf = (v: number) => bundle.manifest.views[v]?.phase ?? 0;
  const phases = Math.max(2, ...bundle.manifest.views.map((v) => (v.phase ?? 0) + 1));
  const coloured = changeQuestionForm(q.options) === "which_box";
  const names = coloured ? [...q.options] : ["the box"];
  const boxes: BoxPhases[] = names.map((name) => ({ name, phases: Array.from({ length: phases }, () => null as string[] | null) }));
  const nameOf = (m: Mask) => (coloured ? nearestNamed(names, m.rgb) : "the box");
  let opened = new Set<string>();
  perView.forEach((masks, v) => {
    if (v > 0 && phaseOf(v) !== phaseOf(v - 1)) opened = new Set();
    const boxMasks = masks.filter((m) => isBoxLabel(m.label)).sort((a, b) => b.area - a.area);
    // the act took the nearest (largest) box the view shows that was not opened yet in this phase
    const acted = boxMasks.find((m) => !opened.has(nameOf(m)));
    if (bundle.manifest.views[v]?.action?.startsWith("open(") && acted) opened.add(nameOf(acted));
    names.forEach((name, k) => {
      if (!opened.has(name)) return;
      const box = coloured ? nearestColoured(boxMasks, (m) => m.rgb, optionColour(name)) : boxMasks[0];
      if (!box) return;
      const inside = masks.filter((m) => m !== box && !isBoxLabel(m.label) && !isLidLabel(m.label) && withinBox(m, box)).map((m) => m.label);
      const p = phaseOf(v);
      boxes[k]!.phases[p] = [...new Set([...(boxes[k]!.phases[p] ?? []), ...inside])];
    });
  });
  return changeDecision(q.options, boxes, trace);
}

export function createSymbolic2dReasoner(o: Symbolic2dOptions = { labels: "oracle", labelSeed: "0" }): Reasoner {
  return programReasoner("symbolic-2d", "bundle", "program-2d", (input, q) => {
    if (!input.bundle) throw new Error("the symbolic-2d reasoner needs the frame bundle (its masks)");
    return decide2d(input.bundle, q, o);
  });
}
