import { ATTACHMENT_FILENAME_MAX_BYTES } from '@tasklane/schemas';
import { fileTypeFromBuffer } from 'file-type';
import type { BlobStore } from '../../platform/storage';

/** What an unrecognised file is served as: bytes to save, never to render. */
export const UNKNOWN_TYPE = 'application/octet-stream';

/**
 * The only types a browser may show in place (Content-Disposition: inline): images and PDF, which
 * cannot run script in our origin (and the content is sandboxed besides). SVG and HTML are
 * recognised by no signature (file-type reads binary signatures only) and are never in this list.
 */
export const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);
/** The images a preview is made of. */
export const THUMBNAIL_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Larger images get no preview, and are not decoded: sharp refuses them from their header. */
export const THUMBNAIL_MAX_PIXELS = 50_000_000;
/** The preview's long side at most. */
export const THUMBNAIL_SIZE = 400;

/** The content type of a file from its first bytes (the store's `head`), never from its name or the client's word. */
export async function sniffContentType(head: Buffer): Promise<string> {
  return (await fileTypeFromBuffer(head))?.mime ?? UNKNOWN_TYPE;
}

/**
 * A WebP preview at most THUMBNAIL_SIZE on the long side, made from the stored temporary file;
 * undefined when the file is no image sharp can read or is larger than THUMBNAIL_MAX_PIXELS. The
 * size is read from the header first (`head`); `limitInputPixels` makes sharp refuse a larger
 * image from its header too, where the head did not reach the dimensions (a JPEG with long
 * metadata), so no such image is ever decoded.
 */
export async function makeThumbnail(files: BlobStore, temporaryKey: string, head: Buffer): Promise<Buffer | undefined> {
  // Loaded with the first image (Node keeps it after): libvips is memory a server that stores no image would hold for nothing.
  const { default: sharp } = await import('sharp');
  try {
    const header = await sharp(head).metadata();
    if (header.width && header.height && header.width * header.height > THUMBNAIL_MAX_PIXELS) return undefined;
  } catch {
    // The head alone was not enough to read the header: limitInputPixels still guards below.
  }
  const path = files.localPath(temporaryKey);
  try {
    // A local file is read by libvips from disk; from S3, the object is streamed into sharp.
    const image = path ? sharp(path, { limitInputPixels: THUMBNAIL_MAX_PIXELS }) : sharp({ limitInputPixels: THUMBNAIL_MAX_PIXELS });
    const output = image
      .rotate()
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    if (!path) {
      const source = await files.read(temporaryKey);
      if (!source) return undefined;
      source.pipe(image);
    }
    return await output;
  } catch {
    return undefined;
  }
}

/** Bidirectional formatting characters: they make `evil\u202Egnp.exe` read as `evilexe.png`. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// Control characters (C0, DEL, C1) and path separators.
// eslint-disable-next-line no-control-regex
const CONTROLS_AND_SEPARATORS = /[\u0000-\u001F\u007F-\u009F/\\]/g;
const encoder = new TextEncoder();
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A filename as kept for display: Unicode (emoji, other scripts, quotes) kept; control characters,
 * bidirectional controls and path separators removed; surrounding spaces trimmed; at most
 * ATTACHMENT_FILENAME_MAX_BYTES of UTF-8, cut between two whole characters (graphemes, so an
 * emoji is never split); `file` when nothing is left. It never names a path: the bytes are stored
 * under their SHA-256, whatever the name.
 */
export function sanitizeFilename(raw: string | undefined): string {
  const cleaned = (raw ?? '').normalize('NFC').replace(CONTROLS_AND_SEPARATORS, '').replace(BIDI_CONTROLS, '').trim();
  let kept = '';
  let bytes = 0;
  for (const { segment } of graphemes.segment(cleaned)) {
    const length = encoder.encode(segment).length;
    if (bytes + length > ATTACHMENT_FILENAME_MAX_BYTES) break;
    kept += segment;
    bytes += length;
  }
  kept = kept.trim();
  return kept === '' || kept === '.' || kept === '..' ? 'file' : kept;
}
