/**
 * The views an active episode has gathered so far, as a frame bundle (paradigm `active`), so every stage
 * that reads bundles (clouds, evidence, the 2D baseline, prompts) reads an episode unchanged. Views are
 * appended; the bundle object of one step is never changed by the next.
 */
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import { reflectionFileNames, viewFileNames } from "../../core/bundle/io.js";
import type { BundleManifest } from "../../core/bundle/schema.js";
import type { Environment } from "./types.js";

export class EpisodeBundle {
  private readonly views: ViewData[] = [];
  private readonly entries: BundleManifest["views"] = [];

  constructor(private readonly manifest: Environment["manifest"]) {}

  /** Appends a view (its index must be the next one), stamped with the phase it saw when the world changes, and returns the bundle of every view so far. */
  add(view: ViewData, phase?: number): FrameBundle {
    if (view.index !== this.views.length) throw new Error(`episode bundle: expected view ${this.views.length}, got ${view.index}`);
    this.views.push(view);
    const reflection = view.reflectedIds ? { reflection: reflectionFileNames(view.index) } : {};
    this.entries.push({
      index: view.index,
      ...viewFileNames(view.index),
      intrinsics: view.K,
      extrinsic: view.E,
      action: view.action,
      ...reflection,
      ...(phase === undefined ? {} : { phase }),
    });
    return this.current();
  }

  current(): FrameBundle {
    return { dir: "", manifest: { ...this.manifest, views: this.entries.slice() }, views: this.views.slice() };
  }

  get length(): number {
    return this.views.length;
  }
}
