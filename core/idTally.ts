/**
 * Counts of 16-bit instance ids (the bundles' id images, PointCloud.instance) in one typed counter per
 * thread instead of a Map update per pixel or point, the ids in order of first appearance as a Map would
 * insert them (callers sum floats in that order, so it must not change).
 */
import { forEachRun } from "./runs.js";

const counter = new Uint32Array(65536);

export interface IdTally {
  /** the ids seen, in order of first appearance */
  ids: number[];
  /** counts[j]: how often ids[j] was seen */
  counts: number[];
}

/** The ids of `values` (at the positions `at`, or every position), counted. */
export function tallyIds(values: ArrayLike<number>, at?: ArrayLike<number>): IdTally {
  const ids: number[] = [];
  // one loop function per case, so neither tests `at` per element (these run over whole clouds and views);
  // functions of their own: with the loops here, V8 compiled them on the stack before the code after them
  // had ever run and discarded that code there on every later call (docs/design.md: hot loops and the JIT)
  if (at) countAt(values, at, ids);
  else countAll(values, ids);
  const counts = ids.map((id) => counter[id]!);
  for (const id of ids) counter[id] = 0;
  return { ids, counts };
}

// Counted by runs (./runs.ts): ids come in long runs (a view's rows, a cloud's points in pixel order, a node's
// members), and adding each run once spares the chain of dependent increments of one counter that a count per
// element makes (each waits for the store before it).

function countAt(values: ArrayLike<number>, at: ArrayLike<number>, ids: number[]): void {
  if (at.length === 0) return;
  let id = values[at[0]!]!,
    run = 0;
  for (let k = 0; k < at.length; k++) {
    const v = values[at[k]!]!;
    if (v === id) {
      run++;
      continue;
    }
    addRun(id, run, ids);
    id = v;
    run = 1;
  }
  addRun(id, run, ids);
}

function countAll(values: ArrayLike<number>, ids: number[]): void {
  forEachRun(values, (id, from, to) => addRun(id, to - from, ids));
}

/** Adds a run of `run` copies of `id`; a run is added before any later one, so first appearances keep their order. */
function addRun(id: number, run: number, ids: number[]): void {
  if (counter[id] === 0) ids.push(id);
  counter[id]! += run;
}

/**
 * Adds how often each id occurs in `values` to `into[id]` (one counter per possible id). The order of runs
 * does not matter here, so the ids are read two at a time as 32-bit words (either byte order): a word of two
 * equal ids extends the run in one step.
 */
export function countEachId(values: Uint16Array, into: Uint32Array): void {
  const n = values.length;
  if (n === 0) return;
  // an unaligned first id, then whole words, then a last odd id
  const head = (values.byteOffset & 3) === 0 ? 0 : 1;
  const words = new Uint32Array(values.buffer, values.byteOffset + 2 * head, (n - head) >> 1);
  let id = values[0]!,
    run = head;
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    if (x === id * 0x10001) {
      run += 2;
      continue;
    }
    const a = x & 0xffff,
      b = x >>> 16;
    if (a === id) run++;
    else {
      into[id]! += run;
      id = a;
      run = 1;
    }
    if (b === id) run++;
    else {
      into[id]! += run;
      id = b;
      run = 1;
    }
  }
  if (head + 2 * words.length < n) {
    const last = values[n - 1]!;
    if (last === id) run++;
    else {
      into[id]! += run;
      id = last;
      run = 1;
    }
  }
  into[id]! += run;
}

/** How many pixels (or points) each id has, as a map (the background id 0 included), counted by `tallyIds`. */
export function idCounts(values: ArrayLike<number>): Map<number, number> {
  const { ids, counts } = tallyIds(values);
  return new Map(ids.map((id, j) => [id, counts[j]!]));
}
