/**
 * A message on its way to the agent's CLI: its text and the images sent with it (kept files,
 * agent-ops/attachments.ts). Messages queued during a turn go on as one (texts joined, images in
 * order); the images are read from their files only when the line is written.
 */
import { readFileSync } from 'node:fs';
import type { ImageRef } from '../core/image.js';
import type { EncodedImage, RuntimeAdapter } from '../adapters/runtime-adapter.js';
import { shortId } from '../core/ids.js';
import { KlaudeError } from '../lib/errors.js';
import { overBudgetError } from '../agent-ops/budget.js';
import { checkBudget } from './budget-gate.js';
import type { Deps } from './deps.js';

export interface Outgoing {
  text: string;
  images: readonly ImageRef[];
}

export function joinOutgoing(items: readonly Outgoing[]): Outgoing {
  return { text: items.map((o) => o.text).join('\n\n'), images: items.flatMap((o) => o.images) };
}

/** What the log says of a message's images (no bytes, no paths). */
export function imageNotes(images: readonly ImageRef[]): { images: { mediaType: string; bytes: number }[] } | object {
  return images.length ? { images: images.map((i) => ({ mediaType: i.mediaType, bytes: i.bytes })) } : {};
}

/**
 * The stdin line for a message. An image whose file is gone is left out and `problem` says so
 * (the text still goes); a CLI that takes no images is never given any (start and message refuse them first).
 */
export function encodeOutgoing(adapter: RuntimeAdapter, o: Outgoing, problem: (message: string) => void): string {
  const images: EncodedImage[] = [];
  for (const ref of adapter.takesImages ? o.images : []) {
    try {
      images.push({ mediaType: ref.mediaType, data: readFileSync(ref.path).toString('base64') });
    } catch (e) {
      problem(`an image was not sent: ${ref.path} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return adapter.encodeMessage(o.text, images);
}

/** A message the runtime is asked to take: refused past a spend limit, or with images its CLI cannot take. */
export function checkIncoming(d: Deps, images: readonly ImageRef[]): void {
  const over = checkBudget(d);
  if (over) throw overBudgetError(d.session.id, over);
  if (images.length > 0 && !d.adapter.takesImages)
    throw new KlaudeError('E_IMAGE_UNSUPPORTED', `${d.adapter.name} takes no images: only claude agents do`);
}

/** A message or interrupt that came as the run was ending. */
export function runEnding(id: string, what: 'is finishing its run' | 'is not in a turn'): KlaudeError {
  return new KlaudeError(
    'E_AGENT_NOT_RUNNING',
    `agent ${shortId(id)} ${what}`,
    what === 'is finishing its run' ? { hint: 'send the message again: it will resume the agent' } : {},
  );
}
