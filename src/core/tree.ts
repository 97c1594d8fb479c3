/**
 * The session tree: root sessions and their sub-agents, nested by parent id. Pure; imports nothing
 * of the project.
 */
export interface TreeItem {
  id: string;
  parentId: string | null;
}

export interface TreeNode<T extends TreeItem> {
  item: T;
  children: TreeNode<T>[];
}

/**
 * Nest items by parentId, keeping the input order among siblings. An item whose parent is not in
 * the list (hidden, archived, another project) becomes a root. Cycles (corrupt data) are broken:
 * every item appears exactly once.
 */
export function buildTree<T extends TreeItem>(items: readonly T[]): TreeNode<T>[] {
  const nodes = new Map<string, TreeNode<T>>();
  for (const item of items) nodes.set(item.id, { item, children: [] });
  const roots: TreeNode<T>[] = [];
  for (const item of items) {
    const node = nodes.get(item.id)!;
    const parent = item.parentId ? nodes.get(item.parentId) : undefined;
    if (parent && parent !== node && !isAncestor(node, item.parentId!, nodes)) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Whether `id` is `node` or one of its descendants (so attaching there would make a cycle). */
function isAncestor<T extends TreeItem>(node: TreeNode<T>, id: string, nodes: Map<string, TreeNode<T>>): boolean {
  // Walk up from `id` through the parent links (not the children built so far, which are partial).
  // A walk longer than there are nodes has gone round a cycle without `node` in it: no set of the
  // ids seen (one per item: `sessions` builds trees of thousands).
  let cur: string | null = id;
  for (let steps = 0; cur && steps <= nodes.size; steps++) {
    if (cur === node.item.id) return true;
    cur = nodes.get(cur)?.item.parentId ?? null;
  }
  return false;
}

/**
 * Keep the nodes for which `keep` is true, plus every ancestor of a kept node (so the tree stays
 * connected). Returns the pruned copy and how many nodes were dropped.
 */
export function pruneTree<T extends TreeItem>(
  roots: readonly TreeNode<T>[],
  keep: (item: T) => boolean,
): { roots: TreeNode<T>[]; dropped: number } {
  let dropped = 0;
  const visitAll = (nodes: readonly TreeNode<T>[]): TreeNode<T>[] => {
    const out: TreeNode<T>[] = [];
    for (const n of nodes) {
      const children = n.children.length ? visitAll(n.children) : [];
      if (keep(n.item) || children.length > 0) out.push({ item: n.item, children });
      else dropped += 1; // its children were dropped (and counted) already
    }
    return out;
  };
  return { roots: visitAll(roots), dropped };
}

export function countNodes<T extends TreeItem>(roots: readonly TreeNode<T>[]): number {
  let n = 0;
  const stack = [...roots];
  while (stack.length) {
    const x = stack.pop()!;
    n++;
    stack.push(...x.children);
  }
  return n;
}

export interface FlatRow<T extends TreeItem> {
  item: T;
  depth: number;
  /** Tree glyphs before the item: `├─ `, `│  └─ `, … (empty for roots). */
  prefix: string;
  /** Glyphs for lines under the item that belong to it (continuation of its ancestors' lines). */
  continuation: string;
}

/** Depth-first rows with tree glyphs, for text listings. */
export function flattenTree<T extends TreeItem>(roots: readonly TreeNode<T>[]): FlatRow<T>[] {
  const rows: FlatRow<T>[] = [];
  const walk = (nodes: readonly TreeNode<T>[], depth: number, lead: string): void => {
    nodes.forEach((n, i) => {
      const last = i === nodes.length - 1;
      const prefix = depth === 0 ? '' : `${lead}${last ? '└─ ' : '├─ '}`;
      const below = depth === 0 ? '' : `${lead}${last ? '   ' : '│  '}`;
      rows.push({ item: n.item, depth, prefix, continuation: `${below}${n.children.length ? '│  ' : '   '}` });
      walk(n.children, depth + 1, below);
    });
  };
  walk(roots, 0, '');
  return rows;
}
