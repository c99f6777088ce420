/**
 * Hungarian algorithm (Kuhn-Munkres with potentials, O(r^2 c) for r <= c) for rectangular assignment:
 * every row of the smaller side gets a distinct column (or every column a distinct row when there are
 * more rows than columns), minimising the total cost; `maximize` negates the weights first (HOV-SG's
 * linear_sum_assignment(maximize=True) on overlap scores). Costs must be finite: encode "forbidden"
 * as a large finite number and drop those pairs afterwards.
 */

export interface HungarianResult {
  /** Column assigned to each row, -1 when the row is unassigned (more rows than columns). */
  rowToCol: Int32Array;
  /** Row assigned to each column, -1 when the column is unassigned. */
  colToRow: Int32Array;
  /** Sum of the original cost (or weight) over the assigned pairs. */
  total: number;
}

export interface HungarianOptions {
  /** Maximise the total instead of minimising it. */
  maximize?: boolean;
}

/** Row-major `cost` (rows x cols): the optimal assignment. */
export function hungarian(cost: ArrayLike<number>, rows: number, cols: number, opts?: HungarianOptions): HungarianResult;
/** A rectangular number[][] matrix, "min" (default) or "max": the column of each row (-1 = none). */
export function hungarian(matrix: readonly (readonly number[])[], mode?: "min" | "max"): Int32Array;
export function hungarian(
  a: ArrayLike<number> | readonly (readonly number[])[],
  b?: number | "min" | "max",
  c?: number,
  d?: HungarianOptions,
): HungarianResult | Int32Array {
  if (typeof b === "number") return solve(a as ArrayLike<number>, b, c!, d?.maximize ?? false);
  const m = a as readonly (readonly number[])[];
  const rows = m.length,
    cols = rows ? m[0]!.length : 0;
  const flat = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    if (m[i]!.length !== cols) throw new RangeError(`hungarian: row ${i} has ${m[i]!.length} entries, row 0 has ${cols}`);
    for (let j = 0; j < cols; j++) flat[i * cols + j] = m[i]![j]!;
  }
  return solve(flat, rows, cols, b === "max").rowToCol;
}

function solve(cost: ArrayLike<number>, rows: number, cols: number, maximize: boolean): HungarianResult {
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 0 || cols < 0) throw new RangeError(`hungarian: bad size ${rows} x ${cols}`);
  if (cost.length !== rows * cols) throw new RangeError(`hungarian: cost has ${cost.length} entries, expected ${rows} x ${cols} = ${rows * cols}`);
  for (let k = 0; k < cost.length; k++) {
    if (!Number.isFinite(cost[k]!))
      throw new RangeError(`hungarian: cost[${Math.floor(k / Math.max(cols, 1))}][${k % Math.max(cols, 1)}] = ${cost[k]} is not finite`);
  }
  const rowToCol = new Int32Array(rows).fill(-1);
  const colToRow = new Int32Array(cols).fill(-1);
  if (rows === 0 || cols === 0) return { rowToCol, colToRow, total: 0 };
  // Work on n <= m (transpose when there are more rows), minimising.
  const transpose = rows > cols;
  const n = transpose ? cols : rows,
    m = transpose ? rows : cols;
  const sign = maximize ? -1 : 1;
  const at = (i: number, j: number) => sign * (transpose ? cost[j * cols + i]! : cost[i * cols + j]!);

  // e-maxx formulation, 1-based: p[j] = row matched to column j, potentials u (rows), v (columns)
  const u = new Float64Array(n + 1),
    v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1),
    way = new Int32Array(m + 1);
  const minv = new Float64Array(m + 1);
  const used = new Uint8Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity,
        j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = at(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else {
          minv[j]! -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  let total = 0;
  for (let j = 1; j <= m; j++) {
    const i = p[j]!;
    if (i === 0) continue;
    const r = transpose ? j - 1 : i - 1,
      cc = transpose ? i - 1 : j - 1;
    rowToCol[r] = cc;
    colToRow[cc] = r;
    total += cost[r * cols + cc]!;
  }
  return { rowToCol, colToRow, total };
}
