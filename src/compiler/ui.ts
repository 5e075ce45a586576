/**
 * The Agent Definition Specification's `ui` and `localization`: validated exactly as its field tables say, then stripped
 * from the runtime payload (the seed: "They must never affect runtime behavior") — except the
 * input-side file constraints (`accept`, `max_size_mb` of `file`/`file-multi` widgets), which the
 * seed makes the runtime enforce "again at the boundary": those compile into
 * `interface.input.file_fields` and `loom run`/`loom start` check them before a workflow starts.
 *
 * Also renders the form an external UI would show (`loom describe AGENT --locale L`), with the
 * seed's inheritance rule: anything a locale block does not list comes from `default_locale`.
 * Pure: no I/O; diagnostics go through the structural context.
 */
import type { PathPart } from './source';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

export interface UiCtx {
  err(path: PathPart[], code: string, message: string, key?: boolean): void;
  warn(path: PathPart[], code: string, message: string, key?: boolean): void;
}

export const WIDGETS = ['text', 'textarea', 'select', 'checkbox', 'date', 'file', 'file-multi', 'hidden'] as const;
export type Widget = (typeof WIDGETS)[number];
const FILE_WIDGETS: readonly string[] = ['file', 'file-multi'];
const UI_KEYS = ['icon', 'display_name', 'short_description', 'order', 'featured', 'ui_hints'];
const HINT_KEYS = ['widget', 'label', 'placeholder', 'helper_text', 'options', 'accept', 'max_size_mb'];
const LOCALIZATION_KEYS = ['supported_locales', 'default_locale', 'localized_ui'];
/** What a locale block may override (seed: "Three levels of content can be localized"). */
const LOCALE_BLOCK_KEYS = ['display_name', 'short_description', 'ui_hints'];
const LOCALE_HINT_KEYS = ['label', 'placeholder', 'helper_text', 'options'];
export const SHORT_DESCRIPTION_MAX = 120;

/**
 * BCP 47 language tag (RFC 5646 "langtag" production, without extensions/private use beyond the
 * common forms): language[-script][-region][-variant]*. `en`, `fr`, `pt-BR`, `zh-Hant-TW`, `es-419`.
 */
const BCP47 = /^(?:[a-zA-Z]{2,3}(?:-[a-zA-Z]{3}){0,3}|[a-zA-Z]{4,8})(?:-[a-zA-Z]{4})?(?:-(?:[a-zA-Z]{2}|\d{3}))?(?:-(?:[a-zA-Z\d]{5,8}|\d[a-zA-Z\d]{3}))*$/;
export const isBcp47 = (tag: string): boolean => BCP47.test(tag);

/** `image/*`, `video/mp4`, `.pdf`: a MIME type (with a `*` subtype allowed) or a file extension. */
const ACCEPT_ENTRY = /^(?:\.[A-Za-z0-9][A-Za-z0-9._+-]*|[a-z]+\/(?:\*|[A-Za-z0-9][A-Za-z0-9.+-]*))$/;

/** The runtime's copy of one file field's constraints (compiled into interface.input.file_fields). */
export interface FileFieldRule { multiple: boolean; accept?: string[]; max_size_mb?: number }

const list = (xs: readonly string[]): string => xs.join(' | ');

/**
 * Validate `ui` and `localization` of an agent definition. `inputProps` are the keys of
 * interface.input.schema.properties (ui_hints keys must name one of them). Returns the file
 * fields' constraints for the runtime.
 */
export function checkUi(ctx: UiCtx, ui: unknown, localization: unknown, inputProps: string[] | undefined): Record<string, FileFieldRule> {
  const files: Record<string, FileFieldRule> = {};
  const hints = new Map<string, Obj>();
  if (ui !== undefined) {
    if (!isObj(ui)) ctx.err(['ui'], 'AGF090', '`ui` must be a mapping: `ui: {display_name: "…", short_description: "…"}`');
    else checkUiBlock(ctx, ui, inputProps, hints, files);
  }
  if (localization !== undefined) {
    if (!isObj(localization)) ctx.err(['localization'], 'AGF092', '`localization` must be a mapping: `localization: {supported_locales: [en, fr], default_locale: en}`');
    else checkLocalization(ctx, localization, hints, ui !== undefined);
  }
  return files;
}

function checkUiBlock(ctx: UiCtx, ui: Obj, inputProps: string[] | undefined, hints: Map<string, Obj>, files: Record<string, FileFieldRule>): void {
  for (const k of Object.keys(ui)) if (!UI_KEYS.includes(k)) ctx.err(['ui', k], 'AGF090', `unknown \`ui\` field \`${k}\`; the seed's ui fields are ${UI_KEYS.join(', ')}`, true);
  for (const k of ['display_name', 'short_description'] as const) {
    if (ui[k] === undefined) ctx.err(['ui'], 'AGF090', `\`ui.${k}\` is required (the ${k === 'display_name' ? 'customer-facing name shown in listings and page titles' : 'one sentence shown in catalog listings'}); add \`${k}: "…"\``, true);
    else if (!isStr(ui[k]) || !(ui[k] as string).trim()) ctx.err(['ui', k], 'AGF090', `\`ui.${k}\` must be a non-empty string`);
  }
  if (isStr(ui.short_description) && ui.short_description.trim().length > SHORT_DESCRIPTION_MAX)
    ctx.warn(['ui', 'short_description'], 'AGL040', `\`ui.short_description\` is ${ui.short_description.trim().length} characters; keep it under ${SHORT_DESCRIPTION_MAX} (it is one sentence in a catalog listing)`);
  if (ui.icon !== undefined && !isStr(ui.icon)) ctx.err(['ui', 'icon'], 'AGF090', '`ui.icon` must be an icon identifier string, e.g. `icon: "headset"`');
  if (ui.order !== undefined && !Number.isInteger(ui.order)) ctx.err(['ui', 'order'], 'AGF090', `\`ui.order\` must be an integer (lower numbers appear first), got ${JSON.stringify(ui.order)}`);
  if (ui.featured !== undefined && typeof ui.featured !== 'boolean') ctx.err(['ui', 'featured'], 'AGF090', `\`ui.featured\` must be true or false, got ${JSON.stringify(ui.featured)}`);
  if (ui.ui_hints === undefined) return;
  if (!isObj(ui.ui_hints)) { ctx.err(['ui', 'ui_hints'], 'AGF091', '`ui.ui_hints` must map input field names to rendering hints: `ui_hints: {question: {widget: textarea, label: "…"}}`'); return; }
  for (const [field, hint] of Object.entries(ui.ui_hints)) {
    const at: PathPart[] = ['ui', 'ui_hints', field];
    if (inputProps && !inputProps.includes(field))
      ctx.err(at, 'AGF091', `ui_hints entry \`${field}\` names no input field; interface.input.schema.properties has ${inputProps.length ? inputProps.join(', ') : 'none'}`, true);
    if (!isObj(hint)) { ctx.err(at, 'AGF091', `ui_hints.${field} must be a mapping: \`{widget: text, label: "…"}\``); continue; }
    hints.set(field, hint);
    checkHint(ctx, field, hint, at, files);
  }
}

function checkHint(ctx: UiCtx, field: string, hint: Obj, at: PathPart[], files: Record<string, FileFieldRule>): void {
  for (const k of Object.keys(hint)) if (!HINT_KEYS.includes(k)) ctx.err([...at, k], 'AGF091', `unknown ui_hints key \`${k}\`; allowed: ${HINT_KEYS.join(', ')}`, true);
  const widget = hint.widget;
  if (widget !== undefined && (!isStr(widget) || !(WIDGETS as readonly string[]).includes(widget)))
    ctx.err([...at, 'widget'], 'AGF091', `widget ${JSON.stringify(widget)} is not in the vocabulary: ${list(WIDGETS)}`);
  for (const k of ['label', 'placeholder', 'helper_text']) if (hint[k] !== undefined && !isStr(hint[k])) ctx.err([...at, k], 'AGF091', `\`${k}\` must be a string`);
  if (widget === 'select') {
    if (hint.options === undefined) ctx.err([...at, 'widget'], 'AGF091', `widget \`select\` needs \`options\`: a list of {value, label}, e.g. \`options: [{value: billing, label: "Billing issue"}]\``);
  } else if (hint.options !== undefined) {
    ctx.err([...at, 'options'], 'AGF091', `\`options\` applies to widget \`select\` only (this field's widget is ${JSON.stringify(widget ?? 'the default')}); remove it or write \`widget: select\``, true);
  }
  if (hint.options !== undefined) checkOptions(ctx, hint.options, [...at, 'options'], true);
  const isFile = isStr(widget) && FILE_WIDGETS.includes(widget);
  for (const k of ['accept', 'max_size_mb']) {
    if (hint[k] !== undefined && !isFile) ctx.err([...at, k], 'AGF091', `\`${k}\` applies to widgets \`file\` and \`file-multi\` only (this field's widget is ${JSON.stringify(widget ?? 'the default')})`, true);
  }
  let accept: string[] | undefined;
  if (hint.accept !== undefined) {
    if (!Array.isArray(hint.accept) || !hint.accept.length) ctx.err([...at, 'accept'], 'AGF091', '`accept` must be a non-empty list of MIME types or extensions, e.g. `accept: ["image/*", ".pdf"]`');
    else {
      accept = [];
      hint.accept.forEach((a, i) => {
        if (isStr(a) && ACCEPT_ENTRY.test(a)) accept!.push(a);
        else ctx.err([...at, 'accept', i], 'AGF091', `accept entry ${JSON.stringify(a)} is neither a MIME type (\`image/*\`, \`video/mp4\`) nor a file extension (\`.pdf\`)`);
      });
    }
  }
  let max: number | undefined;
  if (hint.max_size_mb !== undefined) {
    if (typeof hint.max_size_mb !== 'number' || !(hint.max_size_mb > 0)) ctx.err([...at, 'max_size_mb'], 'AGF091', `\`max_size_mb\` must be a positive number of megabytes, got ${JSON.stringify(hint.max_size_mb)}`);
    else max = hint.max_size_mb;
  }
  if (isFile) files[field] = { multiple: widget === 'file-multi', ...(accept ? { accept } : {}), ...(max !== undefined ? { max_size_mb: max } : {}) };
}

/** `options`: a list of {value, label}. In a locale block (`base` = false) only `label` is localizable. */
function checkOptions(ctx: UiCtx, options: unknown, at: PathPart[], base: boolean, known?: unknown[]): void {
  if (!Array.isArray(options)) { ctx.err(at, 'AGF091', '`options` must be a list of {value, label} pairs'); return; }
  options.forEach((o, i) => {
    if (!isObj(o)) { ctx.err([...at, i], 'AGF091', 'each option is a mapping `{value: …, label: "…"}`'); return; }
    if (base) {
      if (o.value === undefined) ctx.err([...at, i], 'AGF091', 'option has no `value` (what is sent to the runtime)');
      if (!isStr(o.label)) ctx.err([...at, i], 'AGF091', 'option needs a string `label` (what the user sees)');
      for (const k of Object.keys(o)) if (k !== 'value' && k !== 'label') ctx.err([...at, i, k], 'AGF091', `unknown option key \`${k}\`; an option has \`value\` and \`label\``, true);
    } else {
      for (const k of Object.keys(o)) if (k !== 'value' && k !== 'label') ctx.err([...at, i, k], 'AGF092', `a locale block overrides only \`options[].label\` (matched by \`value\`); remove \`${k}\``, true);
      if (!isStr(o.label)) ctx.err([...at, i], 'AGF092', 'a localized option needs its `label`');
      if (known && o.value !== undefined && !known.some((v) => v === o.value)) ctx.err([...at, i, 'value'], 'AGF092', `no option with value ${JSON.stringify(o.value)} in the default ui_hints; localized options are matched by value`);
    }
  });
}

function checkLocalization(ctx: UiCtx, loc: Obj, hints: Map<string, Obj>, hasUi: boolean): void {
  for (const k of Object.keys(loc)) if (!LOCALIZATION_KEYS.includes(k)) ctx.err(['localization', k], 'AGF092', `unknown \`localization\` field \`${k}\`; allowed: ${LOCALIZATION_KEYS.join(', ')}`, true);
  const supported: string[] = [];
  if (loc.supported_locales === undefined) ctx.err(['localization'], 'AGF092', '`localization.supported_locales` is required: the locales this agent\'s UI has been prepared for, e.g. `supported_locales: ["en", "fr"]`', true);
  else if (!Array.isArray(loc.supported_locales) || !loc.supported_locales.length) ctx.err(['localization', 'supported_locales'], 'AGF092', '`supported_locales` must be a non-empty list of BCP 47 tags, e.g. `["en", "fr", "pt-BR"]`');
  else loc.supported_locales.forEach((t, i) => {
    if (!isStr(t) || !isBcp47(t)) ctx.err(['localization', 'supported_locales', i], 'AGF092', `${JSON.stringify(t)} is not a BCP 47 language tag (e.g. \`fr\`, \`de\`, \`pt-BR\`, \`zh-Hant\`)`);
    else if (supported.includes(t)) ctx.err(['localization', 'supported_locales', i], 'AGF092', `locale \`${t}\` is listed twice`);
    else supported.push(t);
  });
  if (loc.default_locale === undefined) ctx.err(['localization'], 'AGF092', '`localization.default_locale` is required (the fallback locale); add e.g. `default_locale: "en"`', true);
  else if (!isStr(loc.default_locale) || !isBcp47(loc.default_locale)) ctx.err(['localization', 'default_locale'], 'AGF092', `${JSON.stringify(loc.default_locale)} is not a BCP 47 language tag`);
  else if (supported.length && !supported.includes(loc.default_locale)) ctx.err(['localization', 'default_locale'], 'AGF092', `default_locale \`${loc.default_locale}\` is not among supported_locales (${supported.join(', ')}); add it there or pick one of them`);
  if (loc.localized_ui === undefined) return;
  if (!isObj(loc.localized_ui)) { ctx.err(['localization', 'localized_ui'], 'AGF092', '`localized_ui` maps a locale to its overrides: `localized_ui: {fr: {display_name: "…"}}`'); return; }
  if (!hasUi) ctx.warn(['localization', 'localized_ui'], 'AGL041', '`localized_ui` overrides ui fields but the agent declares no `ui` block; nothing inherits from the default locale');
  for (const [tag, block] of Object.entries(loc.localized_ui)) {
    const at: PathPart[] = ['localization', 'localized_ui', tag];
    if (!isBcp47(tag)) ctx.err(at, 'AGF092', `locale key \`${tag}\` is not a BCP 47 language tag (e.g. \`fr\`, \`pt-BR\`)`, true);
    else if (supported.length && !supported.includes(tag)) ctx.warn(at, 'AGL041', `localized_ui has a block for \`${tag}\`, which is not in supported_locales (${supported.join(', ')}): the platform hides the agent in that locale; add it to supported_locales`, true);
    if (tag === loc.default_locale) ctx.warn(at, 'AGL041', `localized_ui block for the default locale \`${tag}\`: the default locale's text is the \`ui\` block itself; move these values there`, true);
    if (!isObj(block)) { ctx.err(at, 'AGF092', `localized_ui.${tag} must be a mapping of overrides (display_name, short_description, ui_hints)`); continue; }
    for (const k of Object.keys(block)) if (!LOCALE_BLOCK_KEYS.includes(k)) ctx.err([...at, k], 'AGF092', `\`${k}\` cannot be localized; a locale block overrides only ${LOCALE_BLOCK_KEYS.join(', ')}`, true);
    for (const k of ['display_name', 'short_description']) if (block[k] !== undefined && !isStr(block[k])) ctx.err([...at, k], 'AGF092', `\`${k}\` must be a string`);
    if (block.ui_hints === undefined) continue;
    if (!isObj(block.ui_hints)) { ctx.err([...at, 'ui_hints'], 'AGF092', 'a locale\'s ui_hints maps field names to overridden label/placeholder/helper_text/options'); continue; }
    for (const [field, h] of Object.entries(block.ui_hints)) {
      const hat: PathPart[] = [...at, 'ui_hints', field];
      const baseHint = hints.get(field);
      if (!baseHint) ctx.err(hat, 'AGF092', `localized ui_hints entry \`${field}\` has no ui.ui_hints entry to override${hints.size ? ` (declared: ${[...hints.keys()].join(', ')})` : ''}`, true);
      if (!isObj(h)) { ctx.err(hat, 'AGF092', 'must be a mapping of overridden sub-fields'); continue; }
      for (const k of Object.keys(h)) if (!LOCALE_HINT_KEYS.includes(k)) ctx.err([...hat, k], 'AGF092', `\`${k}\` cannot be localized; a locale overrides only ${LOCALE_HINT_KEYS.join(', ')} (options by their label)`, true);
      for (const k of ['label', 'placeholder', 'helper_text']) if (h[k] !== undefined && !isStr(h[k])) ctx.err([...hat, k], 'AGF092', `\`${k}\` must be a string`);
      if (h.options !== undefined) {
        const known = Array.isArray(baseHint?.options) ? (baseHint!.options as unknown[]).filter(isObj).map((o) => o.value) : undefined;
        if (baseHint && baseHint.widget !== 'select') ctx.err([...hat, 'options'], 'AGF092', `\`${field}\` is not a \`select\` field; it has no options to localize`, true);
        checkOptions(ctx, h.options, [...hat, 'options'], false, known);
      }
    }
  }
}

// ---- the form an external UI renders (`loom describe`) ----------------------------------------

export interface FormField {
  name: string;
  widget: string;
  label: string;
  required: boolean;
  type?: string;
  placeholder?: string;
  helper_text?: string;
  options?: { value: unknown; label: string }[];
  accept?: string[];
  max_size_mb?: number;
}

export interface Form {
  agent_id: string;
  locale: string;
  /** The requested locale when it was not supported and the default was used instead. */
  fell_back_from?: string;
  display_name: string;
  short_description: string;
  icon?: string;
  order?: number;
  featured: boolean;
  fields: FormField[];
}

/** Default widget for a field without a ui_hint (the seed: "the front-end's default for its JSON Schema type"). */
function defaultWidget(schema: Obj): string {
  if (Array.isArray(schema.enum)) return 'select';
  if (schema.type === 'boolean') return 'checkbox';
  if (schema.type === 'string' && (schema.format === 'date' || schema.format === 'date-time')) return 'date';
  return 'text';
}

/**
 * The form for `locale` (default: the agent's default_locale): ui values overlaid with the
 * locale's block; fields in the input schema's property order, each with its hint or the default
 * widget for its type. A locale outside supported_locales falls back to default_locale.
 */
export function describeForm(agent: Obj, locale?: string): Form {
  const agentId = isStr(agent.agent_id) ? agent.agent_id : '';
  const ui = isObj(agent.ui) ? agent.ui : {};
  const loc = isObj(agent.localization) ? agent.localization : {};
  const supported = Array.isArray(loc.supported_locales) ? loc.supported_locales.filter(isStr) : [];
  const def = isStr(loc.default_locale) ? loc.default_locale : supported[0] ?? 'en';
  const wanted = locale ?? def;
  const chosen = !locale || supported.includes(wanted) || !supported.length ? wanted : def;
  const block = isObj(loc.localized_ui) && chosen !== def && isObj(loc.localized_ui[chosen]) ? loc.localized_ui[chosen] : {};
  const meta = isObj(agent.meta) ? agent.meta : {};
  const itf = isObj(agent.interface) ? agent.interface : isObj(agent.input) ? { input: agent.input } : {};
  const schema = isObj(itf.input) && isObj(itf.input.schema) ? itf.input.schema : {};
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter(isStr) : [];
  const hints = isObj(ui.ui_hints) ? ui.ui_hints : {};
  const localHints = isObj(block.ui_hints) ? block.ui_hints : {};
  const fields: FormField[] = Object.entries(props).map(([name, s]) => {
    const ps = isObj(s) ? s : {};
    const h = isObj(hints[name]) ? hints[name] : {};
    const lh = isObj(localHints[name]) ? localHints[name] : {};
    const pick = (k: string): string | undefined => (isStr(lh[k]) ? lh[k] : isStr(h[k]) ? h[k] : undefined);
    const widget = isStr(h.widget) ? h.widget : defaultWidget(ps);
    const f: FormField = { name, widget, label: pick('label') ?? name, required: required.includes(name) };
    if (isStr(ps.type)) f.type = ps.type;
    const placeholder = pick('placeholder');
    if (placeholder !== undefined) f.placeholder = placeholder;
    const helper = pick('helper_text');
    if (helper !== undefined) f.helper_text = helper;
    if (Array.isArray(h.options)) {
      const localLabels = Array.isArray(lh.options) ? lh.options.filter(isObj) : [];
      f.options = h.options.filter(isObj).map((o) => {
        const l = localLabels.find((x) => x.value === o.value);
        return { value: o.value, label: isStr(l?.label) ? l.label : isStr(o.label) ? o.label : String(o.value) };
      });
    } else if (!isObj(hints[name]) && Array.isArray(ps.enum)) {
      f.options = ps.enum.map((v) => ({ value: v, label: String(v) }));
    }
    if (Array.isArray(h.accept)) f.accept = h.accept.filter(isStr);
    if (typeof h.max_size_mb === 'number') f.max_size_mb = h.max_size_mb;
    return f;
  });
  const text = (k: 'display_name' | 'short_description', fallback: string): string => (isStr(block[k]) ? block[k] : isStr(ui[k]) ? ui[k] : fallback);
  return {
    agent_id: agentId,
    locale: chosen,
    ...(locale && chosen !== locale ? { fell_back_from: locale } : {}),
    display_name: text('display_name', isStr(meta.name) ? meta.name : agentId),
    short_description: text('short_description', isStr(meta.description) ? meta.description : ''),
    ...(isStr(ui.icon) ? { icon: ui.icon } : {}),
    ...(Number.isInteger(ui.order) ? { order: ui.order as number } : {}),
    featured: ui.featured === true,
    fields,
  };
}

/** The form as text for a terminal. */
export function formatForm(f: Form): string {
  const out = [`${f.display_name}  (${f.agent_id}, locale ${f.locale}${f.fell_back_from ? `; ${f.fell_back_from} is not supported, showing the default` : ''})`];
  if (f.short_description) out.push(f.short_description);
  out.push('');
  for (const x of f.fields) {
    if (x.widget === 'hidden') { out.push(`  (hidden) ${x.name}`); continue; }
    out.push(`  ${x.label}${x.required ? ' *' : ''}  [${x.widget}] ${x.name}`);
    if (x.placeholder) out.push(`      placeholder: ${x.placeholder}`);
    if (x.helper_text) out.push(`      ${x.helper_text}`);
    if (x.options) out.push(`      options: ${x.options.map((o) => `${o.label} (${JSON.stringify(o.value)})`).join(', ')}`);
    if (x.accept) out.push(`      accepts: ${x.accept.join(', ')}`);
    if (x.max_size_mb !== undefined) out.push(`      max size: ${x.max_size_mb} MB per file`);
  }
  if (!f.fields.length) out.push('  (no input fields)');
  return out.join('\n');
}
