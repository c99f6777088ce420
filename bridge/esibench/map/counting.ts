/**
 * The six counting subcategories (Counting w Occlusion, Spatial Segmentation, Merged Observation, Category
 * Ambiguity, Illumination Variability, Structural Enclosure): everything lives in question_data.render
 * (ESI-Bench's released records' metadata).
 */
import { plainAnswer } from "../answers.js";
import { readObject, type Draft, type DraftObject } from "../draft.js";
import { readView, type DraftView } from "../views.js";
import { keyedViews, type Mapper } from "./common.js";

const GROUPS = [
  ["targets", "target"],
  ["confusers", "confuser"],
  ["containers", "container"],
] as const;

export const mapCounting: Mapper = (r, md) => {
  const qd = md.at("question_data");
  const render = qd.at("render");
  const objects: DraftObject[] = [];
  const byName = new Map<string, string>();
  const resolved = render.at("resolved_objects");
  for (const [group, role] of GROUPS)
    resolved
      .at(group)
      .listOrEmpty()
      .forEach((f, i) => {
        const key = `${group}[${i}]`;
        objects.push(readObject(f, key, role));
        if (f.at("name").exists) byName.set(f.at("name").str(), key);
      });
  const views: DraftView[] = [];
  if (render.at("camera_poses").exists) views.push(...keyedViews(render.at("camera_poses"), "view_name"));
  for (const f of render.get("multi_image_input", "views").listOrEmpty())
    views.push(readView(f, f.at("image_path").strOr(f.at("view_id").strOr(f.path)), "room_corner"));
  for (const f of render.at("target_closeups").listOrEmpty()) {
    const v = readView(f, f.at("image_path").strOr(f.path), "target_closeup");
    const key = byName.get(f.at("target_name").strOr(""));
    const vis = f.get("visibility", "is_visible");
    if (key && typeof vis.value === "boolean") v.flags.set(key, vis.value);
    views.push(v);
  }
  const image = render.at("image").strOr("");
  const initial = views.find((v) => v.name === image);
  const bbox = render.get("room_bbox", "bbox_world_xy");
  const room: Draft["room"] = bbox.exists
    ? (() => {
        const [x0, y0, x1, y1] = bbox.vec(4) as [number, number, number, number];
        return { bounds: { min: [x0, y0] as [number, number], max: [x1, y1] as [number, number] }, source: `${bbox.path}` };
      })()
    : {};
  const asked = qd.at("count_target").strOr("");
  const placed = render.at("target_category").exists ? render.at("target_category").str() : null;
  const extra: Record<string, unknown> = {};
  for (const k of ["case", "count_unit", "candidate_index"]) if (qd.at(k).exists) extra[k] = qd.at(k).value;
  return {
    objects,
    views,
    initial: initial ? { name: initial.name, rule: "counting runner: the pose named by render.image" } : null,
    relevant: objects.filter((o) => o.role === "target").map((o) => o.key),
    answer: plainAnswer(r),
    room,
    // esi3d's counting query reads label_metadata.category: the category actually placed (ESI's prompt
    // tells the model about the proxy too); the question's own category is kept beside it
    labelMetadata: { category: placed ?? asked, asked_category: asked, placed_category: placed, ...extra, seed: md.at("seed").value ?? null },
    counting: { asked, placed },
  };
};
