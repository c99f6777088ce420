/**
 * A point cloud that grows by appending clouds (one per view in the active paradigm). Points keep their
 * index once appended, so anything that refers to them by index (scene-graph members) stays valid; the
 * concatenation of per-view gt clouds in view order is the batch gt cloud point for point.
 */
import type { PointCloud } from "./pointcloud.js";

export class GrowingCloud {
  private cap = 0;
  private n = 0;
  private xyz = new Float32Array(0);
  private rgb = new Uint8Array(0);
  private confidence = new Float32Array(0);
  private view = new Uint16Array(0);
  private pixel = new Uint32Array(0);
  private instance = new Uint16Array(0);
  private base: Pick<PointCloud, "categories" | "imageWidth" | "imageHeight" | "source" | "meta"> | null = null;

  get count(): number {
    return this.n;
  }

  private grow(need: number): void {
    if (need <= this.cap) return;
    const cap = Math.max(need, Math.ceil(this.cap * 1.5), 1024);
    const copy = <T extends Float32Array | Uint8Array | Uint16Array | Uint32Array>(a: T, make: (n: number) => T, per: number): T => {
      const b = make(cap * per);
      b.set(a.subarray(0, this.n * per));
      return b;
    };
    this.xyz = copy(this.xyz, (k) => new Float32Array(k), 3);
    this.rgb = copy(this.rgb, (k) => new Uint8Array(k), 3);
    this.confidence = copy(this.confidence, (k) => new Float32Array(k), 1);
    this.view = copy(this.view, (k) => new Uint16Array(k), 1);
    this.pixel = copy(this.pixel, (k) => new Uint32Array(k), 1);
    this.instance = copy(this.instance, (k) => new Uint16Array(k), 1);
    this.cap = cap;
  }

  /** Appends every point of `c`; returns the index range they now occupy. */
  append(c: PointCloud): { from: number; to: number } {
    if (this.base && (c.imageWidth !== this.base.imageWidth || c.imageHeight !== this.base.imageHeight)) throw new Error("growing cloud: views of different image sizes");
    this.base ??= { categories: c.categories, imageWidth: c.imageWidth, imageHeight: c.imageHeight, source: c.source, meta: {} };
    const from = this.n;
    this.grow(from + c.count);
    this.xyz.set(c.xyz.subarray(0, 3 * c.count), 3 * from);
    this.rgb.set(c.rgb.subarray(0, 3 * c.count), 3 * from);
    this.confidence.set(c.confidence.subarray(0, c.count), from);
    this.view.set(c.view.subarray(0, c.count), from);
    this.pixel.set(c.pixel.subarray(0, c.count), from);
    this.instance.set(c.instance.subarray(0, c.count), from);
    this.n += c.count;
    return { from, to: this.n };
  }

  /** The cloud so far (views of the internal arrays, valid until the next append). */
  cloud(meta: Record<string, unknown> = {}): PointCloud {
    if (!this.base) throw new Error("growing cloud: nothing appended yet");
    const n = this.n;
    return {
      count: n,
      xyz: this.xyz.subarray(0, 3 * n),
      rgb: this.rgb.subarray(0, 3 * n),
      confidence: this.confidence.subarray(0, n),
      view: this.view.subarray(0, n),
      pixel: this.pixel.subarray(0, n),
      instance: this.instance.subarray(0, n),
      categories: this.base.categories,
      imageWidth: this.base.imageWidth,
      imageHeight: this.base.imageHeight,
      source: this.base.source,
      meta,
    };
  }
}
