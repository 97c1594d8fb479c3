/**
 * A message on its way to the agent's CLI: its text and the images sent with it (kept files,
 * agent-ops/attachments.ts). Messages queued during a turn go on as one (texts joined, images in
 * order); the images are read from their files only when the line is written.
 */
import { readFileSync } from 'node:fs';
import type { ImageRef } from '../core/image.js';
import type { EncodedImage, RuntimeAdapter } from '../adapters/runtime-adapter.js';

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
