/**
 * The `labels` component: mask-label corruption of fragments, so that the graph builder meets objects
 * that are not there. A fragment is what one view's mask shows of one object (the ConceptGraphs detection
 * the fusion merges across views):
 *
 * - swaps: each object fragment (view, instance id) gets another category with probability labelSwapRate;
 *   a share labelLookalikeShare of swaps go to one of the category's confusables (core/objects/library.ts,
 *   the look-alikes a detector mixes up), the rest to a random library category. A swapped fragment no
 *   longer fuses with its object (fusion matches same labels only), so it becomes a node of its own: a
 *   hallucinated object of the wrong category where a real object stands.
 * - phantoms: floor(λ) patches per view, plus one with probability frac(λ) (λ = labelPhantomsPerView), of
 *   labelPhantomPx floor or wall pixels get a random object category: background fragments with object
 *   labels (the ESI-Bench paper's second failure mode).
 *
 * The geometry is untouched and the cloud keeps every point's true instance id (the diagnosis reads the
 * truth from it); the corrupted masks reach the graph builder through `labelledBundle`, which rewrites the
 * bundle's instance images (and reflection images: a fragment is what the segmenter sees, reflections of the
 * object included) with fake ids from FAKE_LABEL_ID_BASE on.
 */
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import { categoryDef, LIBRARY } from "../../core/objects/library.js";
import type { Rng } from "../../core/math/rng.js";
import { InputError } from "../../core/errors.js";
import type { PointCloud } from "../pointcloud.js";
import { isValid } from "./filters.js";
import { BLOB_SEED_ATTEMPTS, FAKE_LABEL_ID_BASE, type NoiseParams } from "./params.js";

interface LabelSwap {
  view: number;
  /** The object's instance id in that view. */
  id: number;
  from: string;
  to: string;
  lookalike: boolean;
  /** The id its pixels get in `labelledBundle`. */
  fakeId: number;
}

export interface LabelPhantom {
  view: number;
  /** Top-left pixel and size of the patch: the first `pixels` pixels, row by row, of the `side`-wide square. */
  x0: number;
  y0: number;
  side: number;
  pixels: number;
  /** The category it is given. */
  to: string;
  fakeId: number;
}

export interface LabelPlan {
  swaps: LabelSwap[];
  phantoms: LabelPhantom[];
}

/**
 * Every free-standing library category, sorted (the random choices index into it). A box's lid is a part, not an
 * object a recogniser names in place of another, and the robot (an agent, Agent Observation's) came after the index
 * was fixed; leaving them out keeps every other category's index.
 */
const LIBRARY_CATEGORIES: readonly string[] = [...LIBRARY.values()]
  .filter((c) => !c.flags.lid && !c.flags.agent)
  .map((c) => c.category)
  .sort();

function randomOther(category: string, u: number): string {
  const others = LIBRARY_CATEGORIES.filter((c) => c !== category);
  return others[Math.min(others.length - 1, Math.floor(u * others.length))]!;
}

function lookalikeOf(category: string, u: number): string | null {
  const c = LIBRARY.get(category);
  if (!c || c.confusables.length === 0) return null;
  return categoryDef(category).confusables[Math.min(c.confusables.length - 1, Math.floor(u * c.confusables.length))]!;
}

/**
 * The swaps and phantoms of one view, appended to `plan`. `objectIds`: the view's object instance ids in
 * ascending order; `structure[id]` 1 for floor and wall ids. Every fragment draws its three numbers
 * whatever the rate, so a higher level only adds swaps (common random numbers).
 */
export function planViewLabels(
  v: ViewData,
  p: NoiseParams,
  category: ReadonlyMap<number, string>,
  objectIds: readonly number[],
  structure: Uint8Array,
  rngSwap: Rng,
  rngPhantom: Rng,
  plan: LabelPlan,
): void {
  for (const id of objectIds) {
    const u = rngSwap.next(),
      ul = rngSwap.next(),
      uc = rngSwap.next();
    if (u >= p.labelSwapRate) continue;
    const from = category.get(id) ?? "unknown";
    const look = ul < p.labelLookalikeShare ? lookalikeOf(from, uc) : null;
    plan.swaps.push({ view: v.index, id, from, to: look ?? randomOther(from, uc), lookalike: look !== null, fakeId: 0 });
  }
  const lambda = p.labelPhantomsPerView;
  const whole = Math.floor(lambda);
  const count = whole + (rngPhantom.next() < lambda - whole ? 1 : 0);
  const { width: W, height: H, ids, depth } = v;
  const pixels = p.labelPhantomPx,
    side = Math.ceil(Math.sqrt(pixels)),
    rows = Math.ceil(pixels / side);
  if (side > W || rows > H) return;
  const taken = plan.phantoms.filter((f) => f.view === v.index);
  for (let b = 0; b < count; b++) {
    for (let attempt = 0; attempt < BLOB_SEED_ATTEMPTS; attempt++) {
      const x0 = rngPhantom.int(0, W - side),
        y0 = rngPhantom.int(0, H - rows),
        uc = rngPhantom.next();
      if (taken.some((f) => x0 < f.x0 + f.side && f.x0 < x0 + side && y0 < f.y0 + f.side && f.y0 < y0 + rows)) continue;
      let ok = true;
      for (let k = 0; k < pixels && ok; k++) {
        const q = (y0 + Math.floor(k / side)) * W + x0 + (k % side);
        if (!structure[ids[q]!] || !isValid(depth[q]!)) ok = false;
      }
      if (!ok) continue;
      const f: LabelPhantom = {
        view: v.index,
        x0,
        y0,
        side,
        pixels,
        to: LIBRARY_CATEGORIES[Math.min(LIBRARY_CATEGORIES.length - 1, Math.floor(uc * LIBRARY_CATEGORIES.length))]!,
        fakeId: 0,
      };
      plan.phantoms.push(f);
      taken.push(f);
      break;
    }
  }
}

/** Numbers the plan's fake ids (swaps first, then phantoms, in plan order); throws if the bundle's own ids reach FAKE_LABEL_ID_BASE. */
export function assignFakeIds(plan: LabelPlan, bundle: Pick<FrameBundle, "manifest">): void {
  const top = Math.max(0, ...bundle.manifest.instances.map((e) => e.id));
  if (top >= FAKE_LABEL_ID_BASE)
    throw new InputError(`noisy: label corruption needs instance ids below ${FAKE_LABEL_ID_BASE}; the bundle's instance table has id ${top}`);
  let next = FAKE_LABEL_ID_BASE;
  for (const s of plan.swaps) s.fakeId = next++;
  for (const f of plan.phantoms) f.fakeId = next++;
  if (next > 65535) throw new InputError(`noisy: ${next - FAKE_LABEL_ID_BASE} relabelled fragments do not fit in 16-bit instance ids`);
}

/** Pixel indices of a phantom patch, in row order. */
export function phantomPixels(f: LabelPhantom, W: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < f.pixels; k++) out.push((f.y0 + Math.floor(k / f.side)) * W + f.x0 + (k % f.side));
  return out;
}

/** Gives every pixel of `ids` whose id has a new one in `to` (non-zero) that id, in place. */
function relabel(ids: Uint16Array, to: Uint16Array): void {
  for (let q = 0; q < ids.length; q++) if (to[ids[q]!]) ids[q] = to[ids[q]!]!;
}

/** The label plan a cloud carries (noisy clouds with the labels component on), or null. */
function labelPlanOf(cloud: Pick<PointCloud, "source" | "meta">): LabelPlan | null {
  if (cloud.source !== "noisy") return null;
  const plan = (cloud.meta as { labels?: LabelPlan }).labels;
  return plan && (plan.swaps.length > 0 || plan.phantoms.length > 0) ? plan : null;
}

/**
 * The bundle as the graph builder should see it under the cloud's label corruption: the same views with
 * their instance images rewritten (swapped fragments and phantom patches carry fake ids), and the fake ids
 * in the instance table with their wrong categories. Without corruption, the bundle itself. The diagnosis
 * must keep using the true bundle.
 */
export function labelledBundle<B extends Pick<FrameBundle, "manifest" | "views">>(
  bundle: B,
  cloud: Pick<PointCloud, "source" | "meta">,
  firstFakeId = FAKE_LABEL_ID_BASE,
): B {
  const plan0 = labelPlanOf(cloud);
  if (!plan0) return bundle;
  // `firstFakeId`: where this bundle's fake ids start. A memory that lifts one view at a time numbers each
  // view's fakes after the last view's, so a fake id never names two fragments (their numbers are arbitrary).
  const shift = firstFakeId - FAKE_LABEL_ID_BASE;
  const last = Math.max(0, ...plan0.swaps.map((s) => s.fakeId), ...plan0.phantoms.map((f) => f.fakeId)) + shift;
  if (last > 65535) throw new InputError(`noisy: relabelled fragments up to id ${last} do not fit in 16-bit instance ids`);
  const plan: LabelPlan =
    shift === 0
      ? plan0
      : { swaps: plan0.swaps.map((s) => ({ ...s, fakeId: s.fakeId + shift })), phantoms: plan0.phantoms.map((f) => ({ ...f, fakeId: f.fakeId + shift })) };
  const byView = new Map<number, { swaps: LabelSwap[]; phantoms: LabelPhantom[] }>();
  const entry = (view: number) => byView.get(view) ?? byView.set(view, { swaps: [], phantoms: [] }).get(view)!;
  for (const s of plan.swaps) entry(s.view).swaps.push(s);
  for (const f of plan.phantoms) entry(f.view).phantoms.push(f);
  const views = bundle.views.map((v) => {
    const e = byView.get(v.index);
    if (!e) return v;
    const ids = new Uint16Array(v.ids);
    // a swap relabels the object's fragment wherever the view shows it, its reflections in a mirror too (the
    // segmenter sees those as the object: core/bundle/apparentIds.ts)
    let reflectedIds = v.reflectedIds;
    if (e.swaps.length) {
      const to = new Uint16Array(65536);
      for (const s of e.swaps) to[s.id] = s.fakeId;
      relabel(ids, to);
      if (reflectedIds) relabel((reflectedIds = new Uint16Array(reflectedIds)), to);
    }
    for (const f of e.phantoms) for (const q of phantomPixels(f, v.width)) ids[q] = f.fakeId;
    return reflectedIds ? { ...v, ids, reflectedIds } : { ...v, ids };
  });
  const fake = [
    ...plan.swaps.map((s) => ({ id: s.fakeId, category: s.to, structure: false })),
    ...plan.phantoms.map((f) => ({ id: f.fakeId, category: f.to, structure: false })),
  ];
  return { ...bundle, views, manifest: { ...bundle.manifest, instances: [...bundle.manifest.instances, ...fake] } };
}
