/**
 * The determinism tests' scene: a seed's small objects dropped on the floor and on each other. Rotations come from
 * the physics layer's exact builder, so nothing that feeds the engine goes through Math.sin or Math.cos.
 */
import { Rng } from "../../../../core/math/rng.js";
import type { TaskObject } from "../../../../core/task/schema.js";
import { categoryDef } from "../../../../core/objects/library.js";
import { SceneBuilder, type Room } from "../../../../bridge/sim/generate/common.js";
import { axisRotation } from "../../../../bridge/sim/physics/rotation.js";

const CATEGORIES = ["apple", "mug", "book", "toy_block", "can", "bowl", "tennis_ball", "cardboard_box"];
export const SCENE_ROOM: Room = { id: "test_0", type: "test", size: [3, 3], height: 2.6 };

/** Eight objects on free floor spots, yawed; the toy block stands on the book. */
export function droppedScene(seed: string): TaskObject[] {
  const rng = new Rng(seed);
  const b = new SceneBuilder(rng, SCENE_ROOM);
  let book: TaskObject | undefined;
  for (const category of CATEGORIES) {
    const yaw = rng.uniform(-Math.PI, Math.PI);
    if (category === "toy_block" && book) {
      const o = b.add(category, { x: book.position[0], y: book.position[1], bottom: book.position[2] + book.extent[2] / 2, role: "target", support: book.id });
      o.orientation = axisRotation("z", yaw);
      continue;
    }
    const e = SceneBuilder.scaledExtent(rng.pick(categoryDef(category).models).id, 1);
    const spot = b.findFloorSpot([Math.hypot(e[0], e[1]) / 2, Math.hypot(e[0], e[1]) / 2], 0.05, 0);
    if (!spot) throw new Error(`no floor spot for ${category}`);
    const o = b.add(category, { x: spot[0], y: spot[1], role: "target" });
    o.orientation = axisRotation("z", yaw);
    if (category === "book") book = o;
  }
  return b.objects;
}
