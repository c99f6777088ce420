/**
 * What a page inspects: one task of a run (every stored paradigm × source), or one frame bundle's graph.
 * Both give the page head (PageMeta) and build variants on demand; a run's bundles are rendered once per
 * paradigm and kept while the inspection lives.
 */
import type { FrameBundle } from "../../../core/bundle/io.js";
import type { Paradigm } from "../../../core/bundle/schema.js";
import type { Task } from "../../../core/task/schema.js";
import { InputError } from "../../../core/errors.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { ACTIVE_2D_SOURCE, active2dRef, graphFile, readRunTask, recordsFor, variantKey, variantRef, variantsOf, type RunDir } from "./run.js";
import { readStoredGraph } from "../../eval/files.js";
import { PAGE_FORMAT, type PageMeta, type Variant, type VariantRef } from "./types.js";
import { buildEpisodeOnlyVariant, buildVariant, promptFor, reproduceRunGraph, taskInfo, type VariantData } from "./variant.js";
import { replayEpisode, type ReplayedEpisode } from "./episode.js";
import { threeDArms } from "../../eval/config.js";
import type { ItemRecord } from "../../eval/records.js";
import type { EpisodePayload } from "./types.js";

export interface Inspection {
  readonly task: Task;
  readonly refs: VariantRef[];
  /** Page head; `mode`, `api` and `tasks` are the caller's. */
  meta(opts: {
    mode: PageMeta["mode"];
    api: string | null;
    tasks: PageMeta["tasks"];
    initial?: string;
    only?: string[];
    initialStep?: number | null;
  }): PageMeta;
  /** Resolves --paradigm/--source to a variant key; with neither, the first (or the only) variant. */
  resolve(paradigm?: string, source?: string): string;
  data(key: string): Promise<VariantData>;
  variant(key: string): Promise<Variant>;
}

function resolveKey(refs: VariantRef[], what: string, paradigm?: string, source?: string): string {
  const hits = refs.filter((r) => (!paradigm || r.paradigm === paradigm) && (!source || r.source === source));
  const have = refs.map((r) => `${r.paradigm}/${r.source}`).join(", ");
  if (hits.length === 0)
    throw new InputError(
      `${what}: no graph for ${paradigm ? `--paradigm ${paradigm}` : ""}${paradigm && source ? " " : ""}${source ? `--source ${source}` : ""} (this task has: ${have || "none"})`,
    );
  return hits[0]!.key;
}

export class RunInspection implements Inspection {
  readonly task: Task;
  readonly refs: VariantRef[];
  private readonly bundles = new Map<string, FrameBundle>();
  /** The last variant's full data: exports and the page of one command share one rebuild. */
  private last: { key: string; data: Promise<VariantData> } | null = null;

  constructor(
    readonly run: RunDir,
    readonly taskId: string,
    private readonly version: string,
  ) {
    this.task = readRunTask(run, taskId);
    this.refs = variantsOf(run, taskId).map((v) =>
      variantRef(run, taskId, v.paradigm, v.source, readStoredGraph(graphFile(run, taskId, v.paradigm, v.source))),
    );
    const twoD = active2dRef(run, taskId);
    if (twoD) this.refs.push(twoD);
    if (this.refs.length === 0)
      throw new InputError(`${run.dir}/graphs/${taskId}: no stored graphs for this task (the run did not reach it; esi3d run --resume completes it)`);
  }

  meta(opts: {
    mode: PageMeta["mode"];
    api: string | null;
    tasks: PageMeta["tasks"];
    initial?: string;
    only?: string[];
    initialStep?: number | null;
  }): PageMeta {
    const c = this.run.config;
    const variants = opts.only ? this.refs.filter((r) => opts.only!.includes(r.key)) : this.refs;
    return {
      format: PAGE_FORMAT,
      esi3d_version: this.version,
      mode: opts.mode,
      title: `${this.taskId} — esi3d inspect`,
      run: {
        dir: this.run.dir,
        reasoner: c.reasoner.join(","),
        masks: c.graph.masks,
        instances: c.graph.instances,
        format: c.prompt.format,
        noise_level: c.sources.includes("noisy") ? c.noise.noiseLevel : null,
      },
      task: taskInfo(this.task),
      variants,
      initial: opts.initial ?? variants[0]!.key,
      initial_step: opts.initialStep ?? null,
      tasks: opts.tasks,
      api: opts.api,
    };
  }

  resolve(paradigm?: string, source?: string): string {
    return resolveKey(this.refs, `${this.run.dir} --task ${this.taskId}`, paradigm, source);
  }

  private ref(key: string): VariantRef {
    const r = this.refs.find((x) => x.key === key);
    if (!r) throw new InputError(`${this.taskId}: no variant ${key} (have: ${this.refs.map((x) => x.key).join(", ")})`);
    return r;
  }

  data(key: string): Promise<VariantData> {
    if (this.last?.key !== key) {
      const data = this.rebuild(key);
      data.catch(() => (this.last = null));
      this.last = { key, data };
    }
    return this.last.data;
  }

  /** paradigm active: the episode's record and its replay, by variant key (one replay per arm, kept). */
  private readonly episodes = new Map<string, Promise<{ record: ItemRecord; replay: ReplayedEpisode }>>();

  /** The arm's episode record (paradigm active). */
  episodeRecord(key: string): ItemRecord {
    const { paradigm, source } = this.ref(key);
    const { record3d, record2d } = recordsFor(this.run, this.taskId, paradigm, source);
    const r = source === ACTIVE_2D_SOURCE ? record2d : record3d;
    if (!r?.active)
      throw new InputError(
        `${this.run.dir}/items.jsonl: no active episode for ${this.taskId} ${paradigm}/${source} (the run did not finish it; esi3d run --resume completes it)`,
      );
    return r;
  }

  /** Replays an active episode (docs/viewer.md "Active episodes"): once per arm while the inspection lives. */
  episode(key: string): Promise<{ record: ItemRecord; replay: ReplayedEpisode }> {
    let p = this.episodes.get(key);
    if (!p) {
      const { source } = this.ref(key);
      const record = this.episodeRecord(key);
      const arm = source === ACTIVE_2D_SOURCE ? null : threeDArms(this.run.config).find((a) => a.label === source)!;
      const file = arm ? graphFile(this.run, this.taskId, "active", source) : `${this.run.dir}/items.jsonl`;
      const stored = arm ? readStoredGraph(file).graph : null;
      p = replayEpisode(this.task, this.run.config, arm, record, stored, file).then((replay) => ({ record, replay }));
      p.catch(() => this.episodes.delete(key));
      this.episodes.set(key, p);
    }
    return p;
  }

  private async rebuild(key: string): Promise<VariantData> {
    const { paradigm, source } = this.ref(key);
    if (source === ACTIVE_2D_SOURCE && paradigm === "active")
      throw new InputError(
        `--source ${ACTIVE_2D_SOURCE}: the 2D arm of an active run builds no graph, so there is nothing to export; its page shows the episode (-o page.html)`,
      );
    const file = graphFile(this.run, this.taskId, paradigm, source);
    const stored = readStoredGraph(file);
    if (paradigm === "active") {
      const { replay } = await this.episode(key);
      const f = replay.final!;
      return {
        paradigm,
        source,
        task: this.task,
        bundle: replay.bundle,
        cloud: f.cloud,
        graph: stored.graph,
        members: f.members,
        diagnosis: stored.diagnosis,
        moved: replay.moved,
        timings_ms: { ...replay.timings_ms },
      };
    }
    let bundle = this.bundles.get(paradigm);
    const t0 = performance.now();
    if (!bundle) {
      bundle = renderBundle(this.task, paradigm as Paradigm);
      this.bundles.set(paradigm, bundle);
    }
    const renderMs = Math.round(performance.now() - t0);
    const r = await reproduceRunGraph(this.run, this.task, paradigm, source, stored, file, this.version, bundle);
    return {
      paradigm,
      source,
      task: this.task,
      bundle,
      cloud: r.cloud,
      graph: stored.graph,
      members: r.members,
      diagnosis: stored.diagnosis,
      timings_ms: { ...r.timings_ms, render: renderMs },
    };
  }

  async variant(key: string): Promise<Variant> {
    const ref = this.ref(key);
    if (ref.arm === "2d") {
      const { record, replay } = await this.episode(key);
      return buildEpisodeOnlyVariant({
        key,
        paradigm: ref.paradigm,
        source: ref.source,
        bundle: replay.bundle,
        record,
        episode: episodePayload(record, replay),
        timings_ms: { ...replay.timings_ms },
      });
    }
    const d = await this.data(key);
    const { record3d, record2d } = recordsFor(this.run, this.taskId, d.paradigm, d.source);
    const c = this.run.config;
    const episode = d.paradigm === "active" ? await this.episode(key).then(({ record, replay }) => episodePayload(record, replay)) : null;
    return buildVariant({
      ...d,
      record3d,
      record2d,
      episode,
      prompt: promptFor(this.task, d.graph, record3d, record3d?.reasoner ?? c.reasoner[0]!, c.prompt.format, c.prompt.uncertainty),
    });
  }
}

function episodePayload(record: ItemRecord, replay: ReplayedEpisode): EpisodePayload {
  return { record, steps: replay.steps, replay_ms: replay.timings_ms.replay };
}

/** A frame bundle's graph, built by the caller (esi3d inspect BUNDLE): one variant, no records. */
export class BundleInspection implements Inspection {
  readonly task: Task;
  readonly refs: VariantRef[];

  constructor(
    private readonly d: VariantData,
    private readonly version: string,
  ) {
    this.task = d.task;
    // a bundle without a task has no diagnosis: its headline numbers are 0, as for a 2D arm's variant
    const m = d.diagnosis?.metrics;
    this.refs = [
      {
        key: variantKey(d.paradigm, d.source),
        paradigm: d.paradigm,
        source: d.source,
        f1_observed: m?.f1_observed ?? 0,
        duplicates: m?.duplicates ?? 0,
        hallucinated: m?.hallucinated ?? 0,
        merged: m?.merged ?? 0,
        stale: m?.stale ?? 0,
        missed: m ? m.missed_lost + m.missed_unseen : 0,
        correct: null,
        arm: "3d",
        steps: null,
      },
    ];
  }

  meta(opts: { mode: PageMeta["mode"]; api: string | null; tasks: PageMeta["tasks"] }): PageMeta {
    return {
      format: PAGE_FORMAT,
      esi3d_version: this.version,
      mode: opts.mode,
      title: `${this.task.task_id} — esi3d inspect`,
      run: null,
      task: taskInfo(this.task),
      variants: this.refs,
      initial: this.refs[0]!.key,
      initial_step: null,
      tasks: opts.tasks,
      api: opts.api,
    };
  }

  resolve(paradigm?: string, source?: string): string {
    return resolveKey(this.refs, this.d.bundle.dir || this.task.task_id, paradigm, source);
  }

  async data(): Promise<VariantData> {
    return this.d;
  }

  async variant(): Promise<Variant> {
    const d = this.d;
    return buildVariant({ ...d, record3d: null, record2d: null, prompt: promptFor(d.task, d.graph, null, "symbolic", "json", false) });
  }
}
