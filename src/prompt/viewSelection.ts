/** Which of a bundle's views a VLM 2D baseline is shown (images.ts encodes and describes them). */
import { DEFAULT_MAX_IMAGES, MAX_IMAGES, type ImageOptions } from "./formats.js";

/** The image modes, as the options' schema declares them. */
export type ImageMode = ImageOptions["images"];

export function checkMaxImages(maxImages: number): number {
  if (!Number.isInteger(maxImages) || maxImages < 1 || maxImages > MAX_IMAGES) {
    throw new RangeError(`maxImages must be an integer from 1 to ${MAX_IMAGES} (the paper's 30 views), got ${maxImages}`);
  }
  return maxImages;
}

/**
 * Which views to show: `single` → [0]; `multi` → min(n, maxImages) indices round(i·(n−1)/(k−1)), i = 0..k−1:
 * evenly spaced, first and last included, strictly increasing (the step is at least 1).
 */
export function selectViews(totalViews: number, mode: ImageMode, maxImages = DEFAULT_MAX_IMAGES): number[] {
  checkMaxImages(maxImages);
  if (!Number.isInteger(totalViews) || totalViews < 1) throw new RangeError(`a bundle needs at least one view, got ${totalViews}`);
  if (mode === "single") return [0];
  const k = Math.min(totalViews, maxImages);
  if (k === 1) return [0];
  return Array.from({ length: k }, (_, i) => Math.round((i * (totalViews - 1)) / (k - 1)));
}
