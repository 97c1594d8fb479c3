/**
 * The keymap's review keys (src/ui/keymap.ts; `klaude review`): R shows the reviews of the selected
 * session in the right pane, each reviewer's findings under its heading (ClawTap's review tabs:
 * folded to the heading or open, side by side); the others act in that pane.
 */
import type { KeyBinding } from '../key-types.js';
import { canSendReview, canStartReview, needReviewPane, needSelection } from './key-guards.js';

export const REVIEW_KEYS = [
  {
    id: 'view.reviews',
    keys: ['R'],
    scope: 'main',
    group: 'View',
    label: 'reviews',
    description:
      'the reviews of the selected session (klaude review; of the reviewed one when a reviewer is selected): each reviewer with its findings, in the right pane; again: back to its log',
    footer: 9.6,
    when: needSelection,
  },
  {
    id: 'review.next',
    keys: [']'],
    scope: 'main',
    group: 'View',
    label: 'next reviewer',
    description: 'reviews: the next reviewer (what z and S act on)',
    hideWhenOff: true,
    when: needReviewPane,
  },
  {
    id: 'review.prev',
    keys: ['['],
    scope: 'main',
    group: 'View',
    label: 'previous reviewer',
    description: 'reviews: the previous reviewer',
    hideWhenOff: true,
    when: needReviewPane,
  },
  {
    id: 'review.fold',
    keys: ['z'],
    scope: 'main',
    group: 'View',
    label: 'fold',
    description: 'reviews: fold the chosen reviewer to its heading / show its findings again (▸ folded, ▾ open)',
    footer: 9.7,
    hideWhenOff: true,
    when: needReviewPane,
  },
  {
    id: 'review.send',
    keys: ['S'],
    scope: 'main',
    group: 'View',
    label: 'send findings',
    description:
      "reviews: give the chosen reviewer's findings to the reviewed agent as a message (a stopped agent resumes; asks first)",
    footer: 9.8,
    dangerous: true,
    hideWhenOff: true,
    when: canSendReview,
  },
  {
    id: 'review.start',
    keys: ['+'],
    scope: 'main',
    group: 'View',
    label: 'new review',
    description:
      'reviews: start another reviewer on its work (as klaude review: another runtime, read-only), beside the others',
    footer: 9.9,
    hideWhenOff: true,
    when: canStartReview,
  },
] as const satisfies readonly KeyBinding[];
