/**
 * Images pasted into or picked for a message: only the kinds agents take (PNG, JPEG, GIF, WebP),
 * at most MAX_IMAGES; a large photo is scaled down in the page first (longest side 1568 px: what
 * the model sees at most anyway), so a phone does not upload megabytes for nothing. The server
 * checks them again by their bytes.
 */
import { isImageType, MAX_IMAGE_BYTES, sizeText } from '../../core/image.js';

/** An image ready to send: its data URL (the thumbnail) and the base64 part of it (the body). */
export interface PickedImage {
  name: string;
  type: string;
  dataUrl: string;
  bytes: number;
}

const LONGEST = 1568;

function readAsDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error('the image could not be read'));
    r.readAsDataURL(blob);
  });
}

/** A photo larger than the model looks at, scaled down (GIFs are kept: scaling would stop them). */
async function scaled(file: File): Promise<Blob> {
  if (file.type === 'image/gif' || typeof createImageBitmap !== 'function') return file;
  let bmp: ImageBitmap;
  try {
    bmp = await createImageBitmap(file);
  } catch {
    return file; // the server says what is wrong with it
  }
  const k = LONGEST / Math.max(bmp.width, bmp.height);
  if (k >= 1) return file;
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(bmp.width * k);
  canvas.height = Math.round(bmp.height * k);
  canvas.getContext('2d')?.drawImage(bmp, 0, 0, canvas.width, canvas.height);
  const type = file.type === 'image/png' ? 'image/png' : 'image/jpeg';
  const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, type, 0.9));
  return blob ?? file;
}

/** The image as it will be sent, or a sentence saying why it cannot be. */
export async function pickImage(file: File): Promise<PickedImage | string> {
  const name = file.name || 'pasted image';
  if (!isImageType(file.type)) return `${name} is not a PNG, JPEG, GIF or WebP image: agents take only those`;
  const blob = await scaled(file);
  if (blob.size > MAX_IMAGE_BYTES)
    return `${name} is ${sizeText(blob.size)}: an image is at most ${sizeText(MAX_IMAGE_BYTES)}`;
  return { name, type: blob.type || file.type, dataUrl: await readAsDataUrl(blob), bytes: blob.size };
}

/** What the server is sent for each image. */
export const imageBody = (i: PickedImage): { name: string; data: string } => ({
  name: i.name,
  data: i.dataUrl.slice(i.dataUrl.indexOf(',') + 1),
});

/** The image files of a paste (a screenshot, or files copied in a file manager). */
export function pastedFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files = [...data.files];
  if (files.length > 0) return files.filter((f) => f.type.startsWith('image/'));
  return [...data.items].flatMap((it) => (it.kind === 'file' ? [it.getAsFile()].filter((f): f is File => !!f) : []));
}
