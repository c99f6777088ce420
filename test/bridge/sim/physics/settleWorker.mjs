// Settles the objects it is given in a worker thread, with the built product (dist/), and posts the result back:
// the determinism test compares it with the same settle in the test's own thread.
import { parentPort, workerData } from "node:worker_threads";
import { loadPhysics } from "../../../../dist/bridge/sim/physics/world.js";
import { settle } from "../../../../dist/bridge/sim/physics/settle.js";

await loadPhysics();
const { roomSize, objects, dropped, steps } = workerData;
parentPort.postMessage(settle({ roomSize, objects, dropped: new Set(dropped), steps }));
