/** The Markdown body: the required and known `#` sections, and the instructions compiled from them; then `meta` and its lint. */
import type { BodySection } from '../../compiled/types';
import { diag, splitSections, REQUIRED_SECTIONS, OPTIONAL_SECTIONS } from '../source';
import { asObj, asStr, isObj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function compileBody(ctx: Ctx, b: AgentBuild): void {
  const src = ctx.src;
  const { sections, lines, preamble } = splitSections(src.body, src.bodyLine);
  const names = sections.map((s) => s.name.toLowerCase());
  for (const req of REQUIRED_SECTIONS) {
    if (!names.includes(req.toLowerCase())) {
      ctx.diags.push(diag(src.file, src.bodyLine, 1, 'error', 'AGF016', '', `missing required body section \`# ${req}\`; add a level-1 heading \`# ${req}\` followed by its text after the front matter`));
    }
  }
  const allKnown = [...REQUIRED_SECTIONS, ...OPTIONAL_SECTIONS].map((s) => s.toLowerCase());
  const seenSec = new Set<string>();
  sections.forEach((s, i) => {
    const n = s.name.toLowerCase();
    if (!allKnown.includes(n)) ctx.diags.push(diag(src.file, lines[i], 1, 'warning', 'AGL013', '', `unknown body heading \`# ${s.name}\`; the compiler recognises ${[...REQUIRED_SECTIONS, ...OPTIONAL_SECTIONS].map((x) => `# ${x}`).join(', ')} (use \`##\` for sub-headings)`));
    else if (seenSec.has(n)) ctx.diags.push(diag(src.file, lines[i], 1, 'warning', 'AGL013', '', `section \`# ${s.name}\` appears twice; merge them`));
    seenSec.add(n);
  });
  if (preamble) ctx.diags.push(diag(src.file, src.bodyLine, 1, 'warning', 'AGL013', '', 'text before the first `#` heading is not part of any section and is dropped; move it under `# Purpose`'));
  const bodySections: BodySection[] = sections.map((s) => ({ name: s.name, text: s.text }));
  b.bodySections = bodySections;
  b.instructions = bodySections.map((s) => (s.text ? `# ${s.name}\n${s.text}` : `# ${s.name}`)).join('\n\n');
}

/** `meta.description` lint (AGL001): one or two sentences, 20–200 characters. */
export function lintMeta(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const desc = asStr(asObj(d.meta).description);
  if (desc !== undefined && desc.trim().length > 200) ctx.warn(['meta', 'description'], 'AGL001', `description is ${desc.trim().length} characters; keep it to one or two sentences under 200 characters`);
  else if (isObj(d.meta) && (desc === undefined || desc.trim().length < 20)) ctx.warn(desc === undefined ? ['meta'] : ['meta', 'description'], 'AGL001', 'description is missing or too vague; write one or two sentences (20–200 characters) saying what the agent handles');
}
