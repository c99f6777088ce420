/**
 * Point-cloud primitives of the scene-graph stage: Float32Array xyz (x, y, z per point, metres, Z up),
 * structure of arrays, deterministic. Open3D-exact voxel downsampling, DBSCAN and outlier removal;
 * spatial indexes; boxes; overlap; assignment; floor/wall separation.
 */
export * from "./bounds.js";
export * from "./hashGrid.js";
export * from "./kdtree.js";
export * from "./knnGrid.js";
export * from "./voxelDownsample.js";
export * from "./dbscan.js";
export * from "./outliers.js";
export * from "./hull2d.js";
export * from "./boxes.js";
export * from "./overlap.js";
export * from "./hungarian.js";
export * from "./structure.js";
