/**
 * Images a person sends an agent with a message (`klaude message --image`, the web page's paste or
 * pick): the kinds claude takes (PNG, JPEG, GIF, WebP: the Messages API's image types), known by
 * their first bytes, never by a file name or a browser's word; at most MAX_IMAGE_BYTES each (the
 * API's limit for an image) and MAX_IMAGES a message. Pure: imports nothing of the project.
 */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES = 4;

/** An image kept for a message: where its bytes are (private to klaude's home), what it is, how big. */
export interface ImageRef {
  path: string;
  mediaType: ImageType;
  bytes: number;
}

export const isImageType = (x: unknown): x is ImageType =>
  typeof x === 'string' && (IMAGE_TYPES as readonly string[]).includes(x);

const EXT: Record<ImageType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
export const imageExtension = (t: ImageType): string => EXT[t];

const starts = (b: Uint8Array, at: number, sig: readonly number[]): boolean =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);
const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

/** The image type its first bytes say, or null when they are none of the four. */
export function sniffImage(b: Uint8Array): ImageType | null {
  if (starts(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts(b, 0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts(b, 0, ascii('GIF87a')) || starts(b, 0, ascii('GIF89a'))) return 'image/gif';
  if (starts(b, 0, ascii('RIFF')) && starts(b, 8, ascii('WEBP'))) return 'image/webp';
  return null;
}

/** Sizes as people read them: 512 B, 34 KB, 4.2 MB. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A ref as it comes over a socket or a runtime's stdin (checked before use). */
export function isImageRef(x: unknown): x is ImageRef {
  const r = x as Partial<ImageRef> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.path === 'string' &&
    isImageType(r.mediaType) &&
    typeof r.bytes === 'number'
  );
}

/** What a log shows for the images sent with a message: `[image: png, 34 KB]` each; '' for none. */
export function imagesNote(images: readonly { mediaType: string; bytes: number }[] | undefined): string {
  return (images ?? []).map((i) => `[image: ${i.mediaType.replace(/^image\//, '')}, ${sizeText(i.bytes)}]`).join(' ');
}
