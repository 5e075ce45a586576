/**
 * Graph edge conditions (the Agent Definition Specification's "Graph pattern"): a small, safe expression language, parsed
 * into an AST and interpreted (never `eval`/`Function`). Grammar:
 *
 *   expr    := or
 *   or      := and (('or' | '||') and)*
 *   and     := not (('and' | '&&') not)*
 *   not     := ('not' | '!') not | cmp
 *   cmp     := primary (('==' | '!=' | '>=' | '<=' | '>' | '<') primary)?
 *   primary := NUMBER | STRING | true | false | null | call | path | '(' expr ')'
 *   call    := IDENT '(' [expr (',' expr)*] ')'
 *   path    := IDENT ('.' IDENT | '.' NUMBER)*
 *
 * Functions: result_contains(s) (case-insensitive substring of the source node's result text),
 * contains(a, b), len(x), lower(x), exists(x). Paths resolve in the scope given by the caller
 * (the graph engine passes `result`, `state`, `input`, `results`, `node`, `executions`).
 * Part of the payload language: the compiler checks edge conditions with checkExpr, the graph
 * engine (src/orchestration/graph.ts) evaluates them.
 */
import type { JsonValue } from '../compiled/types';
import { jsonEqual } from './json';

export class ExprError extends Error {}

type Tok =
  | { t: 'num'; v: number; p: number }
  | { t: 'str'; v: string; p: number }
  | { t: 'id'; v: string; p: number }
  | { t: 'op'; v: string; p: number }
  | { t: 'eof'; p: number };

export function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === "'" || c === '"') {
      const q = c;
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== q) {
        if (src[j] === '\\' && j + 1 < src.length) { s += src[j + 1]; j += 2; continue; }
        s += src[j++];
      }
      if (j >= src.length) throw new ExprError(`unterminated string starting at ${i}`);
      toks.push({ t: 'str', v: s, p: i });
      i = j + 1;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(src[i + 1] ?? '') && !lastIsValue(toks))) {
      const m = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(src.slice(i))!;
      toks.push({ t: 'num', v: Number(m[0]), p: i });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$-]*/.exec(src.slice(i))!;
      // A trailing '-' belongs to no identifier (kebab-case ids are allowed inside).
      const word = m[0].replace(/-+$/, '');
      toks.push({ t: 'id', v: word, p: i });
      i += word.length;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '>=', '<=', '&&', '||'].includes(two)) { toks.push({ t: 'op', v: two, p: i }); i += 2; continue; }
    if ('<>!().,'.includes(c)) { toks.push({ t: 'op', v: c, p: i }); i++; continue; }
    if (c === '=') throw new ExprError(`'=' at ${i}: use '==' to compare`);
    throw new ExprError(`unexpected character '${c}' at ${i}`);
  }
  toks.push({ t: 'eof', p: src.length });
  return toks;
}

function lastIsValue(toks: Tok[]): boolean {
  const l = toks[toks.length - 1];
  return !!l && (l.t === 'num' || l.t === 'str' || l.t === 'id' || (l.t === 'op' && l.v === ')'));
}

export type Ast =
  | { k: 'lit'; v: JsonValue }
  | { k: 'path'; segs: string[] }
  | { k: 'call'; fn: string; args: Ast[] }
  | { k: 'not'; e: Ast }
  | { k: 'bin'; op: string; l: Ast; r: Ast };

export const EXPR_FUNCTIONS = ['result_contains', 'contains', 'len', 'lower', 'exists'] as const;

export function parseExpr(src: string): Ast {
  const toks = tokenize(src);
  let pos = 0;
  const peek = () => toks[pos];
  const isOp = (v: string) => { const t = peek(); return t.t === 'op' && t.v === v; };
  const isWord = (v: string) => { const t = peek(); return t.t === 'id' && t.v === v; };
  const fail = (msg: string): never => { throw new ExprError(`${msg} at position ${peek().p} in '${src}'`); };

  function or(): Ast {
    let l = and();
    while (isOp('||') || isWord('or')) { pos++; l = { k: 'bin', op: 'or', l, r: and() }; }
    return l;
  }
  function and(): Ast {
    let l = not();
    while (isOp('&&') || isWord('and')) { pos++; l = { k: 'bin', op: 'and', l, r: not() }; }
    return l;
  }
  function not(): Ast {
    if (isOp('!') || isWord('not')) { pos++; return { k: 'not', e: not() }; }
    return cmp();
  }
  function cmp(): Ast {
    const l = primary();
    const t = peek();
    if (t.t === 'op' && ['==', '!=', '>=', '<=', '>', '<'].includes(t.v)) {
      pos++;
      return { k: 'bin', op: t.v, l, r: primary() };
    }
    return l;
  }
  function primary(): Ast {
    const t = peek();
    if (t.t === 'num' || t.t === 'str') { pos++; return { k: 'lit', v: t.v }; }
    if (t.t === 'op' && t.v === '(') {
      pos++;
      const e = or();
      if (!isOp(')')) fail("expected ')'");
      pos++;
      return e;
    }
    if (t.t === 'id') {
      if (t.v === 'true' || t.v === 'false') { pos++; return { k: 'lit', v: t.v === 'true' }; }
      if (t.v === 'null') { pos++; return { k: 'lit', v: null }; }
      if (['and', 'or', 'not'].includes(t.v)) fail(`unexpected '${t.v}'`);
      pos++;
      if (isOp('(')) {
        if (!(EXPR_FUNCTIONS as readonly string[]).includes(t.v)) fail(`unknown function '${t.v}' (known: ${EXPR_FUNCTIONS.join(', ')})`);
        pos++;
        const args: Ast[] = [];
        if (!isOp(')')) {
          args.push(or());
          while (isOp(',')) { pos++; args.push(or()); }
        }
        if (!isOp(')')) fail("expected ')' after arguments");
        pos++;
        return { k: 'call', fn: t.v, args };
      }
      const segs = [t.v];
      while (isOp('.')) {
        pos++;
        const n = peek();
        if (n.t === 'id') segs.push(n.v);
        else if (n.t === 'num' && Number.isInteger(n.v) && n.v >= 0) segs.push(String(n.v));
        else fail("expected a field name after '.'");
        pos++;
      }
      return { k: 'path', segs };
    }
    return fail(t.t === 'eof' ? 'unexpected end of expression' : `unexpected '${(t as { v: unknown }).v}'`);
  }

  const ast = or();
  if (peek().t !== 'eof') fail('unexpected trailing input');
  return ast;
}

/** Syntax-check an expression; returns an error message or undefined. */
export function checkExpr(src: string): string | undefined {
  try {
    parseExpr(src);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export interface ExprScope {
  /** Root names visible to paths (e.g. `state`, `result`, `input`). */
  vars: Record<string, JsonValue | undefined>;
  /** Text used by result_contains (the source node's output as text). */
  resultText: string;
}

function truthy(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

function lookup(scope: ExprScope, segs: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = Object.prototype.hasOwnProperty.call(scope.vars, segs[0]) ? scope.vars[segs[0]] : undefined;
  for (const s of segs.slice(1)) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) cur = /^\d+$/.test(s) ? cur[Number(s)] : s === 'length' ? cur.length : undefined;
    else cur = Object.prototype.hasOwnProperty.call(cur, s) ? cur[s] : undefined;
  }
  return cur;
}

export function textOf(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function evalAst(a: Ast, scope: ExprScope): JsonValue | undefined {
  switch (a.k) {
    case 'lit': return a.v;
    case 'path': return lookup(scope, a.segs);
    case 'not': return !truthy(evalAst(a.e, scope));
    case 'call': {
      const args = a.args.map((x) => evalAst(x, scope));
      switch (a.fn) {
        case 'result_contains':
          return scope.resultText.toLowerCase().includes(textOf(args[0]).toLowerCase());
        case 'contains': {
          const [h, n] = args;
          if (typeof h === 'string') return h.toLowerCase().includes(textOf(n).toLowerCase());
          if (Array.isArray(h)) return h.some((x) => jsonEqual(x, n));
          if (h && typeof h === 'object') return typeof n === 'string' && Object.prototype.hasOwnProperty.call(h, n);
          return false;
        }
        case 'len': {
          const x = args[0];
          if (typeof x === 'string' || Array.isArray(x)) return x.length;
          if (x && typeof x === 'object') return Object.keys(x).length;
          return 0;
        }
        case 'lower': return textOf(args[0]).toLowerCase();
        case 'exists': return args[0] !== undefined && args[0] !== null;
      }
      throw new ExprError(`unknown function '${a.fn}'`);
    }
    case 'bin': {
      if (a.op === 'and') return truthy(evalAst(a.l, scope)) && truthy(evalAst(a.r, scope));
      if (a.op === 'or') return truthy(evalAst(a.l, scope)) || truthy(evalAst(a.r, scope));
      const l = evalAst(a.l, scope);
      const r = evalAst(a.r, scope);
      if (a.op === '==') return jsonEqual(l, r);
      if (a.op === '!=') return !jsonEqual(l, r);
      const both = (typeof l === 'number' && typeof r === 'number') || (typeof l === 'string' && typeof r === 'string');
      if (!both) return false;
      const x = l as number | string;
      const y = r as number | string;
      if (a.op === '>') return x > y;
      if (a.op === '>=') return x >= y;
      if (a.op === '<') return x < y;
      return x <= y;
    }
  }
}

/** Evaluate an expression (string or parsed) to a boolean. */
export function evaluateExpr(src: string | Ast, scope: ExprScope): boolean {
  const ast = typeof src === 'string' ? parseExpr(src) : src;
  return truthy(evalAst(ast, scope));
}
