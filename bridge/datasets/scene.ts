/**
 * What every dataset reader returns: a scene's frames in time order, each with its files, its camera in
 * esi3d's conventions (OpenCV camera axes, camera-from-world [R | t]) and the intrinsics of the image they
 * were given for. The importer (importer.ts) subsamples, reads the pixels and writes one frame bundle.
 */
import type { Intrinsics } from "../../core/math/camera.js";
import type { Mat34 } from "../../core/math/vec.js";
import { InputError } from "../../core/errors.js";

/** The on-disk layouts esi3d imports (docs/own-data.md has a table of each one's files and conventions). */
export const DATASET_LAYOUTS = ["scannet", "scannetpp", "arkitscenes", "tum", "replica"] as const;
export type DatasetLayout = (typeof DATASET_LAYOUTS)[number];

export interface ImageSize {
  width: number;
  height: number;
}

export interface DatasetFrame {
  /** the frame as the dataset names it (file stem or timestamp), recorded per view in the bundle */
  name: string;
  /** absolute paths */
  rgb: string;
  depth: string;
  /** 8- or 16-bit instance-id PNG, when the layout has 2D instance masks */
  mask?: string;
  /** camera-from-world, OpenCV camera axes, in the dataset's world frame */
  extrinsic: Mat34;
  intrinsics: Intrinsics;
  /** the image size `intrinsics` are given for; null = the depth image's */
  intrinsicsSize: ImageSize | null;
  /** where the pose and the intrinsics were read (file and line or key), for messages about them */
  poseFrom: SourcePlace;
  intrinsicsFrom: SourcePlace;
}

/** A place in a dataset's files: the file, and the line or key within it. */
interface SourcePlace {
  file: string;
  field?: string;
}

export interface DatasetScene {
  layout: DatasetLayout;
  /** the scene's name (its folder), made a safe path segment by the importer */
  name: string;
  dir: string;
  frames: DatasetFrame[];
  /** raw depth units per metre: 1000 (mm), 5000 (TUM), 6553.5 (Replica) */
  depthScale: number;
  /** the dataset world's up axis when its layout states it (ScanNet's scans are z-up), else null */
  up: UpAxis | null;
  /** id -> category of the instance masks (ids as they appear in the mask images), when there are masks */
  instances?: Array<{ id: number; category: string }>;
  /** decisions the reader made, kept in the bundle and printed */
  notes: string[];
  /** where the intrinsics came from, said in the notes unless --intrinsics replaced them */
  intrinsicsNote?: string;
}

export const UP_AXES = ["+x", "-x", "+y", "-y", "+z", "-z"] as const;
export type UpAxis = (typeof UP_AXES)[number];

/** A dataset file that cannot be used: names the file and says what was expected. Exit 2. */
export class DatasetError extends InputError {
  constructor(file: string, detail: string, field?: string) {
    super(`${file}: ${field ? `${field}: ` : ""}${detail}`, field === undefined ? { file } : { file, field });
    this.name = "DatasetError";
  }
}
