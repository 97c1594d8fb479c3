/**
 * Images sent with a message (`klaude message --image`, the web page): checked by their first
 * bytes and size (core/image.ts), refused for agents whose CLI takes none, and kept under
 * `<home>/projects/<hash>/attachments/<session>/` (dir 0700, files 0600), so what goes over a
 * socket or into a runtime's request is a path, never megabytes. The runtime reads them when it
 * sends the message (runtime/outgoing.ts); they go with the session's other files when it is deleted.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { shortId } from '../core/ids.js';
import {
  imageExtension,
  MAX_IMAGE_BYTES,
  MAX_IMAGES,
  sizeText,
  sniffImage,
  type ImageRef,
  type ImageType,
} from '../core/image.js';
import { projectDir } from '../config/paths.js';
import { newId } from '../db/ids.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { getAdapter } from '../adapters/registry.js';

/** An image as it arrives: its bytes, and what to call it in a refusal (a file name, "the pasted image"). */
export interface IncomingImage {
  bytes: Uint8Array;
  name: string;
}

export function attachmentsDir(home: string, projectHash: string, sessionId: string): string {
  return path.join(projectDir(home, projectHash), 'attachments', sessionId);
}

/** Too big, in words that show the difference (in bytes when the rounded sizes would read the same). */
function tooBig(name: string, size: number): KlaudeError {
  const near = sizeText(size) === sizeText(MAX_IMAGE_BYTES);
  const said = near
    ? `${size} bytes: an image is at most ${MAX_IMAGE_BYTES} bytes (${sizeText(MAX_IMAGE_BYTES)})`
    : `${sizeText(size)}: an image is at most ${sizeText(MAX_IMAGE_BYTES)}`;
  return new KlaudeError('E_IMAGE', `${name} is ${said}`, { hint: 'send a smaller or scaled-down image' });
}

/** The type of an image, or E_IMAGE saying why it is refused. */
export function checkImage(img: IncomingImage): ImageType {
  if (img.bytes.length > MAX_IMAGE_BYTES) throw tooBig(img.name, img.bytes.length);
  const type = sniffImage(img.bytes);
  if (!type)
    throw new KlaudeError('E_IMAGE', `${img.name} is not a PNG, JPEG, GIF or WebP image`, {
      hint: 'agents take only those four kinds of image',
    });
  return type;
}

/** E_IMAGE_UNSUPPORTED unless the agent's CLI takes images with a message (claude only). */
export async function assertTakesImages(s: Pick<SessionRow, 'id' | 'runtime'>): Promise<void> {
  if ((await getAdapter(s.runtime)).takesImages) return;
  throw new KlaudeError(
    'E_IMAGE_UNSUPPORTED',
    `${shortId(s.id)} is a ${s.runtime} agent, and ${s.runtime} takes no images: only claude agents do`,
    { hint: 'send the text alone (describe what the image shows), or start a claude agent for it' },
  );
}

/** Check every image, then keep them for the session: the refs a message carries. */
export function keepImages(
  home: string,
  s: Pick<SessionRow, 'id' | 'projectId'>,
  images: readonly IncomingImage[],
): ImageRef[] {
  if (images.length > MAX_IMAGES)
    throw new KlaudeError('E_IMAGE', `${images.length} images: a message takes at most ${MAX_IMAGES}`, {
      hint: 'send the rest with another message',
    });
  const typed = images.map((img) => ({ img, type: checkImage(img) }));
  if (typed.length === 0) return [];
  ensurePrivateDir(path.dirname(attachmentsDir(home, s.projectId, s.id)));
  const dir = ensurePrivateDir(attachmentsDir(home, s.projectId, s.id));
  return typed.map(({ img, type }) => {
    const file = path.join(dir, `${newId()}.${imageExtension(type)}`);
    writeFileSync(file, img.bytes, { mode: 0o600, flag: 'wx' });
    return { path: file, mediaType: type, bytes: img.bytes.length };
  });
}

/** An image file given on the command line, read (E_IMAGE when it cannot be). */
export function readImageFile(file: string): IncomingImage {
  try {
    const name = path.basename(file);
    const size = statSync(file).size;
    // (too big: refused without reading it all)
    if (size > MAX_IMAGE_BYTES) throw tooBig(name, size);
    return { bytes: readFileSync(file), name };
  } catch (e) {
    if (e instanceof KlaudeError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? (e as Error).message);
    throw new KlaudeError('E_IMAGE', `cannot read the image ${file}: ${why}`, {
      hint: `give the path of a PNG, JPEG, GIF or WebP file (relative to this directory), at most ${sizeText(MAX_IMAGE_BYTES)}`,
    });
  }
}

/** A deleted session's images go with it. */
export function forgetAttachments(home: string, s: Pick<SessionRow, 'id' | 'projectId'>): void {
  rmSync(attachmentsDir(home, s.projectId, s.id), { recursive: true, force: true });
}
