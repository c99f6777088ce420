#!/usr/bin/env node
/**
 * How Inclined Plane's experiment ends over ESI's parameter draws (bridge/sim/generate/dynamics.ts runOnSlope):
 * N draws of board length, tilt and friction as ESI draws them, the objects taken in turn, and the count of
 * each outcome, overall, by tilt and by object. ESI's 61 released records: 26 stable, 5 slides, 30 falls.
 * Usage: node scripts/slope-outcomes.mjs [draws=120] [seed=slope-outcomes]   (after `npm run build`)
 */
import { Rng } from "../dist/core/math/rng.js";
import { SceneBuilder } from "../dist/bridge/sim/generate/common.js";
import {
  DYNAMIC_FRICTION_MIN,
  runOnSlope,
  SLOPE_HALF_X_M,
  SLOPE_HALF_Y_M,
  SLOPE_HALF_Z_M,
  SLOPE_OBJECTS,
  SLOPE_RESTITUTION,
  SLOPE_TILT_DEG,
  STATIC_FRICTION,
} from "../dist/bridge/sim/generate/dynamics.js";
import { loadPhysics } from "../dist/bridge/sim/physics/world.js";
import { axisRotation, exactSinCos } from "../dist/bridge/sim/physics/rotation.js";

const [drawsArg = "120", seed = "slope-outcomes"] = process.argv.slice(2);
const draws = Number(drawsArg);
if (!(Number.isInteger(draws) && draws > 0)) {
  console.error("usage: node scripts/slope-outcomes.mjs [draws] [seed]: draws is a positive integer");
  process.exit(2);
}
await loadPhysics();
const rng = new Rng(seed);
const room = { id: "slope_0", type: "slope", size: [4, 4], height: 2.6 };
const counts = new Map();
const add = (key, outcome) => {
  const c = counts.get(key) ?? { stable: 0, slides: 0, falls: 0 };
  c[outcome]++;
  counts.set(key, c);
};
for (let i = 0; i < draws; i++) {
  const b = new SceneBuilder(rng, room);
  const halfX = rng.uniform(...SLOPE_HALF_X_M);
  const tiltDeg = rng.uniform(...SLOPE_TILT_DEG);
  const staticFriction = rng.uniform(...STATIC_FRICTION);
  const dynamicFriction = rng.uniform(DYNAMIC_FRICTION_MIN, staticFriction);
  const tilt = (tiltDeg * Math.PI) / 180;
  const { sin, cos } = exactSinCos(tilt);
  const slope = b.addBox("slope", {
    extent: [2 * halfX, 2 * SLOPE_HALF_Y_M, 2 * SLOPE_HALF_Z_M],
    position: [0, 0, halfX * sin + SLOPE_HALF_Z_M * cos],
    orientation: axisRotation("y", tilt),
    color: "grey",
    role: "support",
  });
  const category = SLOPE_OBJECTS[i % SLOPE_OBJECTS.length];
  const object = b.add(category, { x: 0, y: 1, role: "target" });
  const { outcome } = runOnSlope(room.size, slope, object, { staticFriction, dynamicFriction, restitution: SLOPE_RESTITUTION });
  add("all", outcome);
  add(`tilt ${tiltDeg < 20 ? "10-20" : tiltDeg < 30 ? "20-30" : "30-45"} deg`, outcome);
  add(category, outcome);
}
console.log(`${draws} draws, seed "${seed}"`);
console.log("| draws | stable | slides | falls |");
console.log("|---|---|---|---|");
for (const [key, c] of counts) console.log(`| ${key} | ${c.stable} | ${c.slides} | ${c.falls} |`);
