/**
 * The `calculator` builtin tool: mathjs parses the expression (precedence, associativity, positions);
 * this file evaluates the tree over a whitelist of node types, operators, functions and constants —
 * no eval, no mathjs scope.
 */
import type { ConstantNode, FunctionNode, MathNode, OperatorNode, ParenthesisNode, SymbolNode } from 'mathjs';

const MAX_EXPR_CHARS = 2000;
const MAX_DEPTH = 100;

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };
const FUNCTIONS: Record<string, { min: number; max: number; fn: (...a: number[]) => number }> = {
  sqrt: { min: 1, max: 1, fn: Math.sqrt },
  cbrt: { min: 1, max: 1, fn: Math.cbrt },
  abs: { min: 1, max: 1, fn: Math.abs },
  round: {
    min: 1,
    max: 2,
    fn: (x, d = 0) => {
      const f = 10 ** Math.trunc(d);
      return Math.round(x * f) / f;
    },
  },
  floor: { min: 1, max: 1, fn: Math.floor },
  ceil: { min: 1, max: 1, fn: Math.ceil },
  trunc: { min: 1, max: 1, fn: Math.trunc },
  sign: { min: 1, max: 1, fn: Math.sign },
  exp: { min: 1, max: 1, fn: Math.exp },
  ln: { min: 1, max: 1, fn: Math.log },
  log: { min: 1, max: 2, fn: (x, b) => (b === undefined ? Math.log10(x) : Math.log(x) / Math.log(b)) },
  log10: { min: 1, max: 1, fn: Math.log10 },
  log2: { min: 1, max: 1, fn: Math.log2 },
  sin: { min: 1, max: 1, fn: Math.sin },
  cos: { min: 1, max: 1, fn: Math.cos },
  tan: { min: 1, max: 1, fn: Math.tan },
  asin: { min: 1, max: 1, fn: Math.asin },
  acos: { min: 1, max: 1, fn: Math.acos },
  atan: { min: 1, max: 1, fn: Math.atan },
  pow: { min: 2, max: 2, fn: Math.pow },
  hypot: { min: 1, max: 100, fn: Math.hypot },
  min: { min: 1, max: 100, fn: Math.min },
  max: { min: 1, max: 100, fn: Math.max },
};

/** What an expression may contain; anything else is refused before parsing (strings, `;`, `=`, `[`, `#` comments…). */
const ALLOWED_CHAR = /[0-9A-Za-z_.\s+\-*/%^(),]/;
const BINARY: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
  '^': (a, b) => a ** b,
};

let mathParse: ((expr: string) => MathNode) | undefined;
/** mathjs's parser, loaded on the first calculator call (the library takes ~0.5 s to load; a worker that never calculates never pays it). */
function parseTree(src: string): MathNode {
  if (!mathParse) {
    const { create, parseDependencies } = require('mathjs/number') as typeof import('mathjs');
    mathParse = create({ parseDependencies }).parse;
  }
  return mathParse(src);
}

/** mathjs syntax errors in the calculator's words, with 1-based positions. */
function syntaxError(e: Error & { char?: number }, src: string): Error {
  const at = typeof e.char === 'number' ? e.char : undefined;
  const where = at === undefined || at > src.trimEnd().length ? 'at the end' : `at position ${at}`;
  const msg = e.message.replace(/\s*\(char \d+\)\s*$/, '');
  let m: RegExpExecArray | null;
  if (/^Unexpected end of expression/.test(msg)) return new Error('calculator: unexpected end of expression');
  if ((m = /^Parenthesis (\S) expected/.exec(msg))) return new Error(`calculator: expected '${m[1]}' ${where}`);
  if ((m = /^Unexpected (?:part|operator) "?(.+?)"?$/.exec(msg))) return new Error(`calculator: unexpected '${m[1]}' ${where}`);
  if (/^Value expected/.test(msg)) return new Error(`calculator: a number is expected ${where}`);
  return new Error(`calculator: ${msg.charAt(0).toLowerCase()}${msg.slice(1)} ${where}`);
}

function evalTree(node: MathNode, depth: number): number {
  if (depth > MAX_DEPTH) throw new Error('calculator: expression nested too deeply');
  switch (node.type) {
    case 'ConstantNode': {
      const v = (node as ConstantNode).value as unknown;
      if (typeof v !== 'number') throw new Error(`calculator: '${node.toString()}' is not a number`);
      return v;
    }
    case 'ParenthesisNode':
      return evalTree((node as ParenthesisNode).content, depth + 1);
    case 'SymbolNode': {
      const name = (node as SymbolNode).name.toLowerCase();
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name];
      throw new Error(`calculator: unknown name '${name}'${Object.hasOwn(FUNCTIONS, name) ? ` (a function: write ${name}(…))` : ''}`);
    }
    case 'FunctionNode': {
      const fnNode = (node as FunctionNode).fn as MathNode;
      const name = fnNode.type === 'SymbolNode' ? (fnNode as SymbolNode).name.toLowerCase() : fnNode.toString();
      const f = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
      if (!f) throw new Error(`calculator: unknown function '${name}'`);
      const args = (node as FunctionNode).args.map((a) => evalTree(a, depth + 1));
      if (args.length < f.min || args.length > f.max) throw new Error(`calculator: ${name}() takes ${f.min === f.max ? f.min : `${f.min}-${f.max}`} argument(s), got ${args.length}`);
      return f.fn(...args);
    }
    case 'OperatorNode': {
      const op = node as OperatorNode & { isPercentage?: boolean };
      const [a, b] = op.args;
      if (op.implicit) throw new Error(`calculator: write '*' between '${a.toString()}' and '${b.toString()}' (implicit multiplication is not supported)`);
      if (op.isPercentage) throw new Error(`calculator: '%' is the remainder (a % b); for a percentage write ${a.toString()} / 100`);
      if (op.args.length === 1 && (op.op === '-' || op.op === '+')) {
        // Unary minus binds looser than ^ (mathjs's precedence): -2^2 = -4; 2^-1 = 0.5.
        const v = evalTree(a, depth + 1);
        return op.op === '-' ? -v : v;
      }
      const fn = op.args.length === 2 && Object.hasOwn(BINARY, op.op) ? BINARY[op.op] : undefined;
      if (!fn) throw new Error(`calculator: unexpected '${op.op}'`);
      const l = evalTree(a, depth);
      const r = evalTree(b, op.op === '^' ? depth + 1 : depth);
      if ((op.op === '/' || op.op === '%') && r === 0) throw new Error('calculator: division by zero');
      return fn(l, r);
    }
    default:
      throw new Error(`calculator: '${node.toString()}' is not supported: use numbers, + - * / % ^ **, parentheses, functions and pi, e, tau`);
  }
}

/** Evaluate an arithmetic expression without eval. Throws on syntax errors, division by zero, non-finite results. */
export function evaluateExpression(src: string): number {
  if (typeof src !== 'string' || !src.trim()) throw new Error('calculator: empty expression');
  if (src.length > MAX_EXPR_CHARS) throw new Error(`calculator: expression longer than ${MAX_EXPR_CHARS} characters`);
  let open = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (!ALLOWED_CHAR.test(c)) throw new Error(`calculator: unexpected character '${c}' at position ${i + 1}`);
    // Checked before parsing: the parser recurses once per parenthesis.
    if (c === '(' && ++open > MAX_DEPTH) throw new Error('calculator: expression nested too deeply');
    if (c === ')') open--;
  }
  let tree: MathNode;
  try {
    // `**` is `^`; any whitespace is a space (mathjs reads a newline as a second statement). Same length, so positions hold.
    tree = parseTree(src.replace(/\*\*/g, ' ^').replace(/\s/g, ' '));
  } catch (e) {
    if (e instanceof RangeError) throw new Error('calculator: expression nested too deeply');
    throw syntaxError(e as Error, src);
  }
  const v = evalTree(tree, 1);
  if (!Number.isFinite(v)) throw new Error('calculator: the result is not a finite number');
  // Trim binary floating-point noise (0.1 + 0.2 = 0.3).
  const clean = Number(v.toPrecision(15));
  return Object.is(clean, -0) ? 0 : clean;
}
