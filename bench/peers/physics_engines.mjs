#!/usr/bin/env node
/**
 * Which rigid-body engine the built-in world uses (issue 45), settled by measurement: the same scene in each
 * candidate, ten boxes dropped in two overlapping columns onto a fixed floor and stepped 240 times at 1/240 s,
 * timed, and checked for bit-identical poses between two runs in this process and one in a worker thread.
 *
 *   node bench/peers/physics_engines.mjs [--peers DIR] [--runs N]
 *
 * Rapier (`@dimforge/rapier3d-deterministic-compat`) is the project's dependency and loads from the repository.
 * `rapier-fast` is Rapier's ordinary build (`@dimforge/rapier3d-compat`), the price of determinism. It, cannon-es and
 * jolt-physics are peers only: install them outside the tree and name that folder, e.g.
 *   npm install --prefix /tmp/engines cannon-es@0.20.0 jolt-physics@1.1.0 @dimforge/rapier3d-compat@0.21.0
 *   node bench/peers/physics_engines.mjs --peers /tmp/engines
 * An engine that cannot be loaded is reported as such, not skipped silently.
 *
 * Inputs avoid Math.sin/cos (their results may differ between platforms and engines): the boxes' tilts are
 * rational quaternions normalised with a square root, which IEEE 754 rounds exactly.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const STEP_S = 1 / 240;
const STEPS = 240;
const BOXES = 10;
const GRAVITY = -9.81;
const HALF = [0.05, 0.04, 0.03];
const FLOOR_HALF = [2, 2, 0.05];
const FRICTION = 0.5;
const RESTITUTION = 0.1;
const DENSITY = 500;

/** The scene every engine builds: box i's centre and unit quaternion (x, y, z, w), from integers only. */
function scene() {
  const boxes = [];
  for (let i = 0; i < BOXES; i++) {
    const column = i % 2;
    const level = Math.floor(i / 2);
    const q = [1 + (i % 3), 2 - (i % 2), i % 4, 20];
    const n = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    boxes.push({ pos: [column * 0.06 + level * 0.01, 0.02 * column, 0.1 + level * 0.09], rot: q.map((v) => v / n) });
  }
  return boxes;
}

function hashPoses(poses) {
  return createHash("sha256").update(new Uint8Array(new Float64Array(poses).buffer)).digest("hex").slice(0, 16);
}

/** Rapier's scene; `RAPIER` is the deterministic build (ours) or, as a peer, the ordinary one. */
function rapierScene(RAPIER) {
    return () => {
      const world = new RAPIER.World({ x: 0, y: 0, z: GRAVITY });
      world.timestep = STEP_S;
      world.createCollider(RAPIER.ColliderDesc.cuboid(...FLOOR_HALF).setTranslation(0, 0, -FLOOR_HALF[2]).setFriction(FRICTION));
      const bodies = scene().map(({ pos, rot }) => {
        const body = world.createRigidBody(
          RAPIER.RigidBodyDesc.dynamic()
            .setTranslation(...pos)
            .setRotation({ x: rot[0], y: rot[1], z: rot[2], w: rot[3] }),
        );
        world.createCollider(RAPIER.ColliderDesc.cuboid(...HALF).setDensity(DENSITY).setFriction(FRICTION).setRestitution(RESTITUTION), body);
        return body;
      });
      for (let s = 0; s < STEPS; s++) world.step();
      const poses = bodies.flatMap((b) => {
        const t = b.translation();
        const r = b.rotation();
        return [t.x, t.y, t.z, r.x, r.y, r.z, r.w];
      });
      const snapshot = createHash("sha256").update(world.takeSnapshot()).digest("hex").slice(0, 16);
      world.free();
      return { poses, snapshot };
    };
}

const ENGINES = {
  async rapier() {
    const RAPIER = (await import("@dimforge/rapier3d-deterministic-compat")).default;
    await RAPIER.init();
    return rapierScene(RAPIER);
  },
  async "rapier-fast"(peers) {
    const RAPIER = (await import(pathToFileURL(createRequire(join(peers, "package.json")).resolve("@dimforge/rapier3d-compat")).href)).default;
    await RAPIER.init();
    return rapierScene(RAPIER);
  },
  async "cannon-es"(peers) {
    const CANNON = await import(pathToFileURL(createRequire(join(peers, "package.json")).resolve("cannon-es")).href);
    return () => {
      const world = new CANNON.World({ gravity: new CANNON.Vec3(0, 0, GRAVITY) });
      world.defaultContactMaterial.friction = FRICTION;
      world.defaultContactMaterial.restitution = RESTITUTION;
      const floor = new CANNON.Body({ mass: 0, shape: new CANNON.Box(new CANNON.Vec3(...FLOOR_HALF)) });
      floor.position.set(0, 0, -FLOOR_HALF[2]);
      world.addBody(floor);
      const mass = DENSITY * 8 * HALF[0] * HALF[1] * HALF[2];
      const bodies = scene().map(({ pos, rot }) => {
        const body = new CANNON.Body({ mass, shape: new CANNON.Box(new CANNON.Vec3(...HALF)) });
        body.position.set(...pos);
        body.quaternion.set(...rot);
        world.addBody(body);
        return body;
      });
      for (let s = 0; s < STEPS; s++) world.step(STEP_S);
      const poses = bodies.flatMap((b) => [b.position.x, b.position.y, b.position.z, b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w]);
      return { poses, snapshot: null };
    };
  },
  async "jolt-physics"(peers) {
    const initJolt = (await import(pathToFileURL(createRequire(join(peers, "package.json")).resolve("jolt-physics")).href)).default;
    const Jolt = await initJolt();
    return () => {
      const STATIC = 0;
      const MOVING = 1;
      const settings = new Jolt.JoltSettings();
      const pairs = new Jolt.ObjectLayerPairFilterTable(2);
      pairs.EnableCollision(STATIC, MOVING);
      pairs.EnableCollision(MOVING, MOVING);
      const broad = new Jolt.BroadPhaseLayerInterfaceTable(2, 2);
      broad.MapObjectToBroadPhaseLayer(STATIC, new Jolt.BroadPhaseLayer(0));
      broad.MapObjectToBroadPhaseLayer(MOVING, new Jolt.BroadPhaseLayer(1));
      settings.mObjectLayerPairFilter = pairs;
      settings.mBroadPhaseLayerInterface = broad;
      settings.mObjectVsBroadPhaseLayerFilter = new Jolt.ObjectVsBroadPhaseLayerFilterTable(broad, 2, pairs, 2);
      const jolt = new Jolt.JoltInterface(settings);
      Jolt.destroy(settings);
      const system = jolt.GetPhysicsSystem();
      system.SetGravity(new Jolt.Vec3(0, 0, GRAVITY));
      const api = system.GetBodyInterface();
      const add = (half, pos, rot, motion, layer) => {
        const shape = new Jolt.BoxShape(new Jolt.Vec3(...half), 0.0, null);
        const cs = new Jolt.BodyCreationSettings(shape, new Jolt.RVec3(...pos), new Jolt.Quat(...rot), motion, layer);
        cs.mFriction = FRICTION;
        cs.mRestitution = RESTITUTION;
        const body = api.CreateBody(cs);
        Jolt.destroy(cs);
        api.AddBody(body.GetID(), Jolt.EActivation_Activate);
        return body;
      };
      add(FLOOR_HALF, [0, 0, -FLOOR_HALF[2]], [0, 0, 0, 1], Jolt.EMotionType_Static, STATIC);
      const bodies = scene().map(({ pos, rot }) => add(HALF, pos, rot, Jolt.EMotionType_Dynamic, MOVING));
      for (let s = 0; s < STEPS; s++) jolt.Step(STEP_S, 1);
      const poses = bodies.flatMap((b) => {
        const p = b.GetPosition();
        const r = b.GetRotation();
        return [p.GetX(), p.GetY(), p.GetZ(), r.GetX(), r.GetY(), r.GetZ(), r.GetW()];
      });
      Jolt.destroy(jolt);
      return { poses, snapshot: null };
    };
  },
};

async function measure(engine, peers, runs) {
  const t0 = performance.now();
  const simulate = await ENGINES[engine](peers);
  const loadMs = performance.now() - t0;
  const times = [];
  const hashes = new Set();
  let result;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = simulate();
    times.push(performance.now() - t);
    hashes.add(hashPoses(result.poses));
  }
  times.sort((a, b) => a - b);
  const lowest = Math.min(...result.poses.filter((_, i) => i % 7 === 2));
  return { loadMs, medianMs: times[Math.floor(runs / 2)], hashes: [...hashes], snapshot: result.snapshot, lowestZ: lowest };
}

function inWorker(engine, peers) {
  return new Promise((done, fail) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { engine, peers } });
    worker.once("message", done);
    worker.once("error", fail);
  });
}

if (!isMainThread) {
  parentPort.postMessage(await measure(workerData.engine, workerData.peers, 1));
} else {
  const args = process.argv.slice(2);
  const peers = resolve(args.includes("--peers") ? args[args.indexOf("--peers") + 1] : ".");
  const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 5;
  console.log(`scene: ${BOXES} boxes, ${STEPS} steps at 1/${1 / STEP_S} s; ${runs} runs in this thread, 1 in a worker; node ${process.version}`);
  for (const engine of Object.keys(ENGINES)) {
    try {
      const main = await measure(engine, peers, runs);
      const worker = await inWorker(engine, peers);
      const identical = main.hashes.length === 1 && worker.hashes[0] === main.hashes[0];
      console.log(
        `${engine.padEnd(13)} load ${main.loadMs.toFixed(0).padStart(4)} ms  settle ${main.medianMs.toFixed(1).padStart(6)} ms (median)  ` +
          `poses ${main.hashes.join(",")} worker ${worker.hashes[0]}  ${identical ? "bit-identical" : "DIFFER"}` +
          `${main.snapshot ? `  snapshot ${main.snapshot}/${worker.snapshot}` : ""}  lowest box z ${main.lowestZ.toFixed(4)} m`,
      );
    } catch (error) {
      console.log(`${engine.padEnd(13)} not measured: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
