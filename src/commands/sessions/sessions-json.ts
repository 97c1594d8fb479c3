/** What `klaude sessions --json` prints for a session: its row, its pending approvals, artifacts and children. */
import { shortId } from '../../core/ids.js';
import { priorityName, type PriorityName } from '../../core/priority.js';
import type { TreeNode } from '../../core/tree.js';
import type { ApprovalRow } from '../../db/repos/approvals.js';
import type { SessionListRow } from '../../db/repos/listing.js';
import type { ReviewView } from '../../db/repos/reviews.js';

/** A pending permission request as `sessions --json` shows it. */
export interface ApprovalJson {
  id: number;
  requestId: string;
  tool: string;
  /** The command, file path… */
  summary: string;
  input: unknown;
  reason: string | null;
  /** What `klaude approve --always` adds, e.g. `Bash(npm test)`. */
  rule: string | null;
  createdAt: number;
}

export interface SessionJson extends Omit<SessionListRow, 'priority'> {
  shortId: string;
  /** Run-queue priority: high, normal or low. */
  priority: PriorityName;
  /** The oldest pending permission request (the session is `waiting` on it), else null. */
  approval: ApprovalJson | null;
  pendingApprovals: number;
  /** On-stop artifacts (`agents.onStop`) by name. */
  artifacts: Record<string, string>;
  /** Reviews of this session (`klaude review`), oldest first: reviewer, state, findings. */
  reviews: ReviewJson[];
  children: SessionJson[];
}

/** A review as `sessions --json` shows it under the session it reviews. */
export type ReviewJson = Omit<ReviewView, 'originId'> & { shortId: string };

const reviewJson = ({ originId: _o, ...r }: ReviewView): ReviewJson => ({ ...r, shortId: shortId(r.sessionId) });

const approvalJson = (a: ApprovalRow): ApprovalJson => ({
  id: a.id,
  requestId: a.requestId,
  tool: a.toolName,
  summary: a.summary,
  input: a.input,
  reason: a.reason,
  rule: a.suggestedRule,
  createdAt: a.createdAt,
});

export function toJson(
  n: TreeNode<SessionListRow>,
  l: {
    approvals: Map<string, ApprovalRow[]>;
    artifacts: Map<string, Record<string, string>>;
    reviews: Map<string, ReviewView[]>;
  },
): SessionJson {
  const mine = l.approvals.get(n.item.id) ?? [];
  // The row itself gets the added fields (it is this listing's own, fresh from the query): copying
  // a thousand rows of thirty fields each was a tenth of `sessions --json`. Same keys, same order.
  const out = n.item as unknown as SessionJson;
  out.shortId = shortId(n.item.id);
  out.priority = priorityName(n.item.priority);
  out.approval = mine[0] ? approvalJson(mine[0]) : null;
  out.pendingApprovals = mine.length;
  out.artifacts = l.artifacts.get(n.item.id) ?? {};
  out.reviews = (l.reviews.get(n.item.id) ?? []).map(reviewJson);
  out.children = n.children.map((c) => toJson(c, l));
  return out;
}
