/**
 * Runs of equal values in an array (a view's ids along its rows, a cloud's points in pixel order, a cloud's
 * segment per point): the loops that count or place one value per element do it once per run instead. A call
 * per run costs little: runs are far fewer than elements.
 */

/** Calls `visit(value, from, to)` for each maximal run values[from..to) of one value, in order. */
export function forEachRun(values: ArrayLike<number>, visit: (value: number, from: number, to: number) => void): void {
  for (let i = 0; i < values.length; ) {
    const v = values[i]!;
    let e = i + 1;
    while (e < values.length && values[e] === v) e++;
    visit(v, i, e);
    i = e;
  }
}
