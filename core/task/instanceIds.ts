/**
 * The instance ids a task's frames reserve for room structure, as ESI-Bench's tasks number them
 * (docs/tasks.md): the simulator renders them and the service fills a session's default instance table with
 * them, so both read this one declaration.
 */

/** The floor. */
export const FLOOR_ID = 1;
/** The room's four outer walls. */
export const WALL_IDS = [2, 3, 4, 5] as const;
/** A layout's interior walls (schema.ts LayoutSchema): the rest of the structure range 1-15. */
export const INTERIOR_WALL_IDS = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15] as const;
/** Task objects are numbered from here. */
export const FIRST_OBJECT_ID = 16;
