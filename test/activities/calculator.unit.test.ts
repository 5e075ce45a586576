/**
 * The calculator builtin at the edges where mathjs (the parser) could differ from the grammar the
 * tool documents: precedence, unary minus, division by zero, and what mathjs accepts but the tool
 * refuses (implicit multiplication, percentages, units, keywords, assignments, comments).
 */
import { evaluateExpression } from '../../src/activities/calculator';

describe('precedence and associativity', () => {
  test.each([
    ['2 + 3 * 4 ^ 2', 50],
    ['2 * 3 ^ 2', 18],
    ['(2 * 3) ^ 2', 36],
    ['2 ^ 3 ^ 2', 512], // right-associative
    ['(2 ^ 3) ^ 2', 64],
    ['2 ** 3 ** 2', 512],
    ['100 / 10 / 5', 2], // left-associative
    ['100 - 10 - 5', 85],
    ['7 % 4 * 2', 6],
    ['2 * 7 % 4', 2],
    ['1+'.repeat(999) + '1', 1000], // long flat chains are not "nesting"
    ['1 +\n2 *\t3', 7], // newlines and tabs are spaces
  ])('%s = %s', (e, want) => expect(evaluateExpression(e)).toBe(want));
});

describe('unary minus and plus', () => {
  test.each([
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -2', 0.25],
    ['-2 ^ -2', -0.25],
    ['2 * -3', -6],
    ['2 - -3', 5],
    ['-(2 + 3)', -5],
    ['+-+3', -3],
    ['- - - 1', -1],
    ['-7 % 3', -1], // remainder takes the sign of the dividend (JavaScript %)
    ['-sqrt(4)', -2],
    ['0 * -1', 0], // never -0
  ])('%s = %s', (e, want) => expect(evaluateExpression(e)).toBe(want));

  test('long unary and power chains count as nesting', () => {
    expect(evaluateExpression('-'.repeat(98) + '1')).toBe(1); // 99 levels with the expression itself, as before
    expect(() => evaluateExpression('-'.repeat(150) + '1')).toThrow(/nested too deeply/);
    expect(() => evaluateExpression('2^'.repeat(150) + '1')).toThrow(/nested too deeply/);
    expect(() => evaluateExpression('('.repeat(999) + '1' + ')'.repeat(999))).toThrow(/nested too deeply/);
  });
});

describe('division by zero', () => {
  test.each(['1 / 0', '0 / 0', '1 / (2 - 2)', '1 / -0', '5 % 0', '5 % (1 - 1)', '1 / 0.0', '1 / (0 * 7)', '1/0 * 0'])('%s is refused', (e) => {
    expect(() => evaluateExpression(e)).toThrow(/division by zero/);
  });
  test('a tiny divisor is not zero; overflow is not a number', () => {
    expect(evaluateExpression('1 / 1e-300')).toBe(1e300);
    expect(() => evaluateExpression('1 / 1e-320')).toThrow(/not a finite number/);
    expect(() => evaluateExpression('0 ^ -1')).toThrow(/not a finite number/);
  });
});

describe('names are case-insensitive', () => {
  test.each([['SQRT(16)', 4], ['Pi * 0 + E ^ 0', 1], ['MAX(1, Tau) > 0'.replace(' > 0', ''), 6.28318530717959]])('%s = %s', (e, want) => expect(evaluateExpression(e)).toBe(want));
});

describe('what mathjs accepts and the calculator refuses', () => {
  test.each([
    ['2 pi', /write '\*' between '2' and 'pi'/],
    ['2(3 + 4)', /implicit multiplication/],
    ['(1 + 2)(3)', /implicit multiplication/],
    ['1e', /implicit multiplication/],
    ['3 cm', /implicit multiplication/],
    ['50%', /'%' is the remainder.*50 \/ 100/],
    ['5 mod 2', /unexpected 'mod'/],
    ['1 to 2', /unexpected 'to'/],
    ['1 and 1', /unexpected 'and'/],
    ['true', /unknown name 'true'|not a number/],
    ['null', /not a number|unknown name/],
    ['Infinity', /not a finite number/],
    ['sqrt', /unknown name 'sqrt' \(a function: write sqrt\(…\)\)/],
    ['x.y', /not supported/],
    ['Math.max(1)', /unknown function 'Math.max'/],
    ['a = 1', /unexpected character '='/],
    ['[1, 2]', /unexpected character '\['/],
    ['{a: 1}', /unexpected character '\{'/],
    ['1 # comment', /unexpected character '#'/],
    ["2'", /unexpected character '''/],
    ['5!', /unexpected character '!'/],
    ['1 ? 2 : 3', /unexpected character '\?'/],
    ['1 == 1', /unexpected character '='/],
    ['1 | 2', /unexpected character '\|'/],
    ['$a', /unexpected character '\$'/],
    ['1\n2', /unexpected '2'/],
    ['1, 2', /unexpected ','/],
  ])('%j is refused', (e, re) => expect(() => evaluateExpression(e)).toThrow(re));
});

describe('syntax errors name a position', () => {
  test.each([
    ['1 2', "calculator: unexpected '2' at position 3"],
    ['(1 + 2', "calculator: expected ')' at the end"],
    ['1 +', 'calculator: unexpected end of expression'],
    ['()', 'calculator: a number is expected at position 2'],
    ['2 ** * 3', 'calculator: a number is expected at position 6'], // `**` keeps positions
    ['max(, 1)', 'calculator: a number is expected at position 5'],
  ])('%j', (e, msg) => expect(() => evaluateExpression(e)).toThrow(msg));
});

test('mathjs is loaded on the first calculation, not when the tools module is imported', () => {
  let loads = 0;
  jest.isolateModules(() => {
    jest.doMock('mathjs/number', () => {
      loads++;
      return jest.requireActual('mathjs/number');
    });
    const tools = require('../../src/activities/calculator') as typeof import('../../src/activities/calculator');
    expect(loads).toBe(0);
    expect(tools.evaluateExpression('1 + 1')).toBe(2);
    expect(tools.evaluateExpression('2 + 2')).toBe(4);
    expect(loads).toBe(1);
  });
});
