/** The YAML front matter of a registry file's text, as an object. */
import * as yaml from 'js-yaml';

export function parseFrontMatter(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---/.exec(text);
  if (!m) throw new Error(`no front matter in:\n${text}`);
  return yaml.load(m[1]) as Record<string, unknown>;
}
