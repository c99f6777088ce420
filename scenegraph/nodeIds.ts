/**
 * Node ids in the active memory once the agent has moved an object (issue 46). A graph numbers its nodes n0,
 * n1, ... by centroid, so a moved node would come back under the id of its new place in that order, and the
 * agent, which names nodes by id, would lose it. A moved node keeps the id it had (it is pinned), every other
 * node is numbered by centroid as before, skipping the pinned ids: with one object moved and no node new or
 * gone, every node keeps its id. An episode with no manipulation pins nothing and numbers as a batch build.
 */
export class NodeIds {
  /** Every id ever pinned (the order of first pinning): none of them is given to another node. */
  private readonly pinnedIds: string[] = [];

  /** Keeps `id` for the node that is this object from now on (its earlier id, or the id it had when it moved). */
  pin(id: string): void {
    if (!this.pinnedIds.includes(id)) this.pinnedIds.push(id);
  }

  get pinned(): readonly string[] {
    return this.pinnedIds;
  }

  /**
   * The ids of the nodes in node order, given which node is which pinned object (`pinned[k]`: node k's pinned
   * id, undefined for an unmoved node); a pinned object no node shows this step keeps its id reserved.
   */
  ids(pinned: ReadonlyArray<string | undefined>): string[] {
    const reserved = new Set(this.pinnedIds);
    const out: string[] = [];
    let next = 0;
    for (const id of pinned) {
      // two nodes of one pinned object (it split): the first in node order keeps the id
      if (id !== undefined && !out.includes(id)) {
        out.push(id);
        continue;
      }
      while (reserved.has(`n${next}`)) next++;
      out.push(`n${next++}`);
    }
    return out;
  }
}
