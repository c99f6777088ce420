/**
 * A point cloud that grows by appending clouds (one per view in the active paradigm). Points keep their
 * index once appended, so anything that refers to them by index (scene-graph members) stays valid; the
 * concatenation of per-view gt clouds in view order is the batch gt cloud point for point.
 */
import { allocateColumns, columnsPrefix, setColumns, type PointCloud } from "../reconstruct/pointcloud.js";

export class GrowingCloud {
  private cap = 0;
  private n = 0;
  private columns = allocateColumns(0);
  private base: Pick<PointCloud, "categories" | "imageWidth" | "imageHeight" | "source" | "meta"> | null = null;

  get count(): number {
    return this.n;
  }

  private grow(need: number): void {
    if (need <= this.cap) return;
    const cap = Math.max(need, Math.ceil(this.cap * 1.5), 1024);
    const bigger = allocateColumns(cap);
    setColumns(bigger, columnsPrefix(this.columns, this.n), 0);
    this.columns = bigger;
    this.cap = cap;
  }

  /** Appends every point of `c`; returns the index range they now occupy. */
  append(c: PointCloud): { from: number; to: number } {
    if (this.base && (c.imageWidth !== this.base.imageWidth || c.imageHeight !== this.base.imageHeight))
      throw new Error("growing cloud: views of different image sizes");
    this.base ??= { categories: c.categories, imageWidth: c.imageWidth, imageHeight: c.imageHeight, source: c.source, meta: {} };
    const from = this.n;
    this.grow(from + c.count);
    setColumns(this.columns, columnsPrefix(c, c.count), from);
    this.n += c.count;
    return { from, to: this.n };
  }

  /** The cloud so far (views of the internal arrays, valid until the next append). */
  cloud(meta: Record<string, unknown> = {}): PointCloud {
    if (!this.base) throw new Error("growing cloud: nothing appended yet");
    return {
      count: this.n,
      ...columnsPrefix(this.columns, this.n),
      categories: this.base.categories,
      imageWidth: this.base.imageWidth,
      imageHeight: this.base.imageHeight,
      source: this.base.source,
      meta,
    };
  }
}
