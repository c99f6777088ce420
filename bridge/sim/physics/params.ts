/**
 * The built-in world's physical constants, each with its source. ESI-Bench runs Isaac Sim (PhysX) through
 * OmniGibson; where ESI's generators set a value we take it, elsewhere PhysX's own default stands in.
 */

/** Physics step (s): ESI's `physics_timestep` 1/240 (batch_slope.py's environment config). */
export const PHYSICS_STEP_S = 1 / 240;
/** Gravity along -Z (m/s^2): standard gravity, as Isaac Sim's default scene. */
export const GRAVITY_M_S2 = 9.81;

/** A surface's friction and bounce, as Isaac Sim's physics material holds them. */
export interface Material {
  staticFriction: number;
  dynamicFriction: number;
  restitution: number;
}

/** Material of a body that names none: PhysX's default material (static 0.5, dynamic 0.5, restitution 0). */
export const DEFAULT_MATERIAL: Material = { staticFriction: 0.5, dynamicFriction: 0.5, restitution: 0 };
/** Density of a body that names no mass (kg/m^3): PhysX's default density, water's. */
export const DEFAULT_DENSITY_KG_M3 = 1000;

/**
 * Rapier keeps one friction coefficient per collider, PhysX two: static until a contact slides, dynamic after.
 * A body moving faster than this (m/s) counts as sliding and gets its dynamic coefficient for the next step,
 * slower as sticking and gets its static one. Ours: 1 cm/s is 0.04 mm per 1/240 s step, far under the 3 cm a
 * slide must cover to count in Inclined Plane.
 */
export const STICK_SLIP_SPEED_M_S = 0.01;

/**
 * How far above its support an object is dropped before it settles (m). ESI places objects with OmniGibson's
 * `sample_kinematics("onTop")` and then steps the simulator; the object starts just clear of the surface.
 * The gap is ours: small enough that the fall (about 17 steps of 1/240 s for 5 mm) ends well within a settle.
 */
export const DROP_CLEARANCE_M = 0.005;
/**
 * Physics steps (1/240 s) per ESI step. ESI's generators step `og.sim.step()`, which advances one action step of
 * its config's `action_timestep` 1/60 s, four physics steps. [I]: the spec leaves physics vs action steps open;
 * ESI's released Inclined Plane records have objects ending on the floor after rolling off a 0.4–0.6 m board,
 * which 30 physics steps (0.125 s) cannot do.
 */
export const PHYSICS_STEPS_PER_ESI_STEP = 4;
/** Steps a dropped object is given to come to rest (ESI's stacking check settles 60 steps; ours for the rest). */
export const SETTLE_STEPS = 60;

/**
 * Largest overlap between two settled bodies that still counts as resting contact (m). Rapier lets contacts sink
 * up to its allowed linear error (0.001 m at a length unit of 1 m) before pushing back; twice that is ours.
 */
export const PENETRATION_TOLERANCE_M = 0.002;
