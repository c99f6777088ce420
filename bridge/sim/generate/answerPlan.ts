/**
 * Where each task's right answer sits among its options, planned before the task is drawn, so that within a
 * subcategory the answer's position is spread evenly over the option slots by construction, not only in
 * expectation: "always the first option" or a position prior then scores chance on every prefix of the suite
 * (a run's `--limit`, `--per-subcategory`).
 *
 * A subcategory asks one or more question forms, each with a fixed number of options (ANSWER_FORMS). Task i's
 * form is drawn balanced over the forms (each block of F consecutive tasks holds each form once, in a seeded
 * order); its slot is the one whose count lies furthest below its share so far, where a task of k options adds
 * 1/k to the share of each of its k slots (ties broken by a seeded draw). With one form of k options this is a
 * seeded permutation of the k slots per block of k tasks, so no slot ever holds more than its share plus one.
 *
 * A generator honours the plan: yes/no and class questions make the answer the option at the slot (which also
 * balances the answer classes), the others put the answer at the slot (suite.ts resamples a draft that does not).
 */
import { Rng } from "../../../core/math/rng.js";
import type { GeneratedSubcategory } from "../../../core/task/taxonomy.js";

/**
 * The option count of each question form of a subcategory, in the form order the generator reads. Each count
 * is the generator's own (the construction notes of each generator give its source).
 */
const ANSWER_FORMS: Record<GeneratedSubcategory, readonly number[]> = {
  geometric_configuration: [3],
  linear_alignment: [2],
  spatial_distance: [2],
  dimensional_size: [2],
  physical_contact: [2],
  material_transparency: [2],
  partial_occlusion: [2],
  view_hallucination: [2],
  counting_with_occlusion: [4],
  spatial_segmentation: [4],
  merged_observation: [4],
  category_ambiguity: [4],
  illumination_variability: [4],
  // physical.ts OPTION_SETS: {small, fit, big}, {small, fit}, {fit, big}
  rigid_containment: [3, 2, 2],
  liquid_volume: [2],
  connectivity: [2],
  traversable_passage: [2],
  // mapping.ts: "which room does X belong to" (3 rooms offered), "are X and Y in the same region" (yes/no)
  regional_boundary: [3, 2],
  long_term_navigation: [2],
  // dynamics.ts: "will it stay stable (not slide) on the slope?", yes/no as ESI asks
  inclined_plane: [2],
  // stacking.ts: 3 or 2 objects to order (STACK_OBJECT_COUNTS); the answer is an ordering, no option, so the slot is unused
  stacking_stability: [3, 2],
  // enclosure.ts: four integer options, as the other counting tasks
  structural_enclosure: [4],
  // deformable.ts: the covered object's category and 3 distractors, A-D (ESI's DEFORMABLE options)
  deformable: [4],
  // mirror.ts: ESI's yes/no, "A"/"B" and left/middle/right
  reflection_authoring: [2],
  mirror_spatial_relations: [2],
  mirror_correspondence: [3],
  // unobservedChange.ts UNOBSERVED_FORMS: ESI's three question types in its released mix, four detection (yes/no),
  // three identification (replace/remove/add/no_change), three current-state (brown/red/yellow box) per ten tasks
  unobserved_change: [2, 2, 2, 2, 4, 4, 4, 3, 3, 3],
  // agentObservation.ts: ESI's four counts 0-3
  agent_observation: [4],
  // actionOrder.ts: 3 or 2 roles (ROLE_COUNTS), each question offers one pair of relations (the base's part at the slot)
  action_order_inference: [2, 2],
};

export interface AnswerPlan {
  /** index into the subcategory's ANSWER_FORMS */
  form: number;
  /** options of that form */
  options: number;
  /** the index the right answer must have among the options */
  slot: number;
}

/** Tie tolerance of the share comparison: shares are sums of 1/k. */
const SHARE_EPSILON = 1e-9;

/** Plans computed so far, per seed and subcategory: task i's plan depends on tasks 0..i-1's, so they are kept. */
const planCache = new Map<string, AnswerPlan[]>();

/** The plan of task `index` of a subcategory of the built-in suite drawn with `seed`. */
export function answerPlan(seed: string, subcategory: GeneratedSubcategory, index: number): AnswerPlan {
  if (!(Number.isInteger(index) && index >= 0)) throw new RangeError(`answerPlan: index must be a non-negative integer, got ${index}`);
  const key = `${seed}\u0000${subcategory}`;
  let plans = planCache.get(key);
  if (!plans) planCache.set(key, (plans = []));
  if (plans.length <= index)
    extendPlans(plans, new Rng(seed).fork(subcategory).fork("answer-plan"), ANSWER_FORMS[subcategory], index, BALANCED_PER_FORM.has(subcategory));
  return plans[index]!;
}

/**
 * Subcategories whose forms are different questions with answer classes of their own, told apart by their option
 * counts (Unobserved Change's yes/no, change type and which box): each question's slots are balanced within its
 * forms, so its classes are balanced too (balanced over the forms together, 30 tasks gave its change-type question no_change 2, remove 4, add 3,
 * replace 0). The others balance slots over their forms together, as they always have (their tasks stay the same).
 */
const BALANCED_PER_FORM: ReadonlySet<GeneratedSubcategory> = new Set(["unobserved_change"]);

function extendPlans(plans: AnswerPlan[], rng: Rng, forms: readonly number[], index: number, perForm: boolean): void {
  const width = Math.max(...forms);
  // one tally per question (its forms are the entries of its option count), or one for all
  const tallies = new Map<number, { counts: number[]; shares: number[] }>();
  const tallyOf = (form: number) => {
    const key = perForm ? forms[form]! : 0;
    let t = tallies.get(key);
    if (!t) tallies.set(key, (t = { counts: new Array<number>(width).fill(0), shares: new Array<number>(width).fill(0) }));
    return t;
  };
  for (const p of plans) addTask(tallyOf(p.form).counts, tallyOf(p.form).shares, p.options, p.slot);
  let order: number[] = [];
  for (let t = plans.length; t <= index; t++) {
    const inBlock = t % forms.length;
    if (inBlock === 0 || order.length === 0) order = rng.fork(`forms/${Math.floor(t / forms.length)}`).shuffle(forms.map((_, f) => f));
    const form = order[inBlock]!;
    const k = forms[form]!;
    const { counts, shares } = tallyOf(form);
    for (let j = 0; j < k; j++) shares[j]! += 1 / k;
    let least = Infinity;
    for (let j = 0; j < k; j++) least = Math.min(least, counts[j]! - shares[j]!);
    const candidates = [];
    for (let j = 0; j < k; j++) if (counts[j]! - shares[j]! <= least + SHARE_EPSILON) candidates.push(j);
    const slot = rng.fork(`slot/${t}`).pick(candidates);
    counts[slot]!++;
    plans.push({ form, options: k, slot });
  }
}

/** Adds a planned task to the running counts and shares. */
function addTask(counts: number[], shares: number[], k: number, slot: number): void {
  for (let j = 0; j < k; j++) shares[j]! += 1 / k;
  counts[slot]!++;
}

/** The options with `answer` at `slot` and the others, in their given order, around it. */
export function withAnswerAt<T>(slot: number, answer: T, others: readonly T[]): T[] {
  if (!(Number.isInteger(slot) && slot >= 0 && slot <= others.length)) throw new RangeError(`withAnswerAt: slot ${slot} is outside 0..${others.length}`);
  return [...others.slice(0, slot), answer, ...others.slice(slot)];
}
