/**
 * The boundary check of the Agent Definition Specification's file widgets: "The runtime enforces the declared types" and
 * max_size_mb is enforced "again at the boundary". A `file` field's value is a path to a local
 * file, a `file-multi` field's value a list of paths; `loom run`/`loom start` refuse an input
 * whose files are missing, of a type outside `accept`, or larger than `max_size_mb` (the platform
 * default LOOM_MAX_UPLOAD_MB, 25 MB, when the field sets none) before any workflow starts.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { CompiledAgent, JsonValue } from '../compiled/types';

export const DEFAULT_MAX_UPLOAD_MB = 25;

/** Extension → MIME type for the common upload types (what `accept: ["image/*"]` is matched against). */
const MIME: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml', '.bmp': 'image/bmp', '.tif': 'image/tiff', '.tiff': 'image/tiff', '.heic': 'image/heic',
  '.mp4': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm', '.mkv': 'video/x-matroska', '.avi': 'video/x-msvideo',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.ogg': 'audio/ogg', '.m4a': 'audio/mp4', '.flac': 'audio/flac',
  '.pdf': 'application/pdf', '.json': 'application/json', '.zip': 'application/zip', '.xml': 'application/xml',
  '.doc': 'application/msword', '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel', '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint', '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.txt': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv', '.html': 'text/html', '.htm': 'text/html',
};

export function mimeOf(file: string): string | undefined {
  return MIME[path.extname(file).toLowerCase()];
}

/** Does `file` match one `accept` entry (`.pdf`, `image/*`, `video/mp4`)? Extensions compare case-insensitively. */
export function accepts(accept: readonly string[], file: string): boolean {
  const ext = path.extname(file).toLowerCase();
  const mime = mimeOf(file);
  return accept.some((a) => {
    if (a.startsWith('.')) return a.toLowerCase() === ext;
    if (!mime) return false;
    return a.endsWith('/*') ? mime.startsWith(a.slice(0, -1)) : a === mime;
  });
}

function platformLimitMb(env: NodeJS.ProcessEnv): number {
  const n = Number(env.LOOM_MAX_UPLOAD_MB);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_MAX_UPLOAD_MB;
}

/**
 * Problems with the files an input names, one line each (empty = fine). Relative paths resolve
 * against `cwd`. Fields absent from the input are the schema's business, not this check's.
 */
export function fileInputErrors(agent: CompiledAgent, input: JsonValue, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string[] {
  const rules = agent.interface.input.file_fields;
  if (!rules || !input || typeof input !== 'object' || Array.isArray(input)) return [];
  const out: string[] = [];
  for (const [field, rule] of Object.entries(rules)) {
    const v = (input as Record<string, JsonValue>)[field];
    if (v === undefined || v === null) continue;
    const files = rule.multiple ? v : [v];
    if (!Array.isArray(files) || files.some((f) => typeof f !== 'string')) {
      out.push(`/${field} must be ${rule.multiple ? 'a list of file paths (widget file-multi)' : 'a file path (widget file)'}`);
      continue;
    }
    const limit = rule.max_size_mb ?? platformLimitMb(env);
    (files as string[]).forEach((f, i) => {
      const where = rule.multiple ? `/${field}/${i}` : `/${field}`;
      let st: fs.Stats;
      try {
        st = fs.statSync(path.resolve(cwd, f));
      } catch {
        out.push(`${where} file ${JSON.stringify(f)} does not exist`);
        return;
      }
      if (!st.isFile()) { out.push(`${where} ${JSON.stringify(f)} is not a regular file`); return; }
      if (rule.accept && !accepts(rule.accept, f)) out.push(`${where} ${JSON.stringify(f)} is ${mimeOf(f) ?? `of an unknown type (${path.extname(f) || 'no extension'})`}; this field accepts ${rule.accept.join(', ')}`);
      const mb = st.size / (1024 * 1024);
      if (mb > limit) out.push(`${where} ${JSON.stringify(f)} is ${mb.toFixed(1)} MB; the limit is ${limit} MB per file${rule.max_size_mb === undefined ? ' (platform default, LOOM_MAX_UPLOAD_MB)' : ''}`);
    });
  }
  return out;
}
