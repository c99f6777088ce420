/**
 * Two sources side by side: a second 3D view of another variant of the same paradigm (gt beside noisy),
 * its camera linked to the main view's both ways, so an orbit, pan, zoom or preset in either moves both.
 * It draws with the main view's settings (colour mode, toggles, point size, status filter); the panel
 * stays the main view's.
 */
import type { TaskInfo, Variant } from "../types.js";
import type { DecodedCloud } from "./data.mjs";
import { h } from "./dom.mjs";
import { Viewer } from "./view3d.mjs";

export class LinkedView {
  readonly pane = h("div", { class: "viewport compare", hidden: true, "data-testid": "compare-pane" });
  private readonly labels = h("div", { class: "labels" });
  private readonly caption = h("div", { class: "caption", "data-testid": "compare-caption" });
  private viewer: Viewer | null = null;
  private syncing = false;
  /** The variant shown (null: no comparison), and whether it is drawn. */
  key: string | null = null;
  ready = false;

  constructor(
    private readonly primary: Viewer,
    private readonly load: (key: string) => Promise<{ v: Variant; cloud: DecodedCloud }>,
    private readonly task: TaskInfo,
  ) {
    this.pane.append(this.labels, this.caption);
  }

  /** The second view while it is shown. */
  get active(): Viewer | null {
    return this.key !== null ? this.viewer : null;
  }

  /** Shows `key` beside the main view (null hides it); `caption` names it. */
  async show(key: string | null, caption: string): Promise<void> {
    this.key = key;
    this.ready = false;
    this.pane.hidden = key === null;
    if (key === null) return;
    const w = this.viewer ?? this.create();
    this.caption.textContent = `${caption} · loading…`;
    const { v, cloud } = await this.load(key);
    if (this.key !== key) return; // a later choice won
    w.setVariant(v, cloud, this.task.objects, this.task.room.size, true);
    w.setColorMode(this.primary.getColorMode());
    w.setToggles(this.primary.getToggles());
    w.setPointSize(this.primary.pointSize);
    w.setStatusFilter(this.primary.getStatusFilter());
    this.follow(this.primary, w);
    w.renderNow();
    this.caption.textContent = caption;
    this.ready = true;
  }

  private create(): Viewer {
    const w = new Viewer(this.pane, this.labels);
    this.pane.insertBefore(w.renderer.domElement, this.labels);
    this.viewer = w;
    this.primary.onCamera = () => this.key !== null && this.follow(this.primary, w);
    w.onCamera = () => this.key !== null && this.follow(w, this.primary);
    return w;
  }

  /** Copies one view's camera to the other (the copy's own change event is ignored, or they would echo). */
  private follow(from: Viewer, to: Viewer): void {
    if (this.syncing) return;
    this.syncing = true;
    try {
      to.setCameraState(from.cameraState());
    } finally {
      this.syncing = false;
    }
  }
}
