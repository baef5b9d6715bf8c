import { beforeAll, describe, expect, it } from 'vitest';
import { BfclEnvironment } from '../../src/envs/bfcl/env';

// Expected strings were produced by BFCL's own MathAPI (Python 3.11.7, mpmath 1.3.0) through
// execute_multi_turn_func_call.
const CASES: [string, string][] = [
  ["logarithm(value=2, base=10, precision=30)", "{'result': mpf('0.301029995663981195213738894724506')}"],
  ["logarithm(value=0.001, base=10, precision=12)", "{'result': mpf('-3.0')}"],
  ["logarithm(value=1.0000001, base=2.718281828459045, precision=25)", "{'result': mpf('0.00000009999999505838705049575354268')}"],
  ["logarithm(value=-8, base=2, precision=5)", "{'result': mpc(real='3.0', imag='4.5323639')}"],
  ["logarithm(value=20, base=1, precision=5)", '{"error": ""}'],
  ["logarithm(value=10, base=0, precision=5)", "{'result': mpf('0.0')}"],
  ["logarithm(value=1e-300, base=10, precision=30)", "{'result': mpf('-299.999999999999999989116974694487')}"],
  ["logarithm(value=123456789, base=7, precision=60)", "{'result': mpf('9.57464648365858987611839264615682364797999296678778899990455362')}"],
  ["logarithm(value=20,base=10,precision=2)", "{'result': mpf('1.3027')}"],
  ["square_root(number=2, precision=28)", "{'result': Decimal('1.414213562373095048801688724')}"],
  ["square_root(number=16.0, precision=5)", "{'result': Decimal('4')}"],
  ["square_root(number=0.1, precision=20)", "{'result': Decimal('0.31622776601683794198')}"],
  ["square_root(number=1e-20, precision=10)", "{'result': Decimal('1.000000000E-10')}"],
  ["square_root(number=12345678901234567890, precision=3)", "{'result': Decimal('3.51E+9')}"],
  ["square_root(number=2.25, precision=1)", "{'result': Decimal('2')}"],
  ["square_root(number=-1, precision=5)", '{"error": "Cannot calculate square root of a negative number"}'],
  ["square_root(number=4, precision=0)", 'Error during execution: valid range for prec is [1, MAX_PREC]'],
  ["round_number(number=2.675, decimal_places=2)", '{"result": 2.67}'],
  ["round_number(number=0.125, decimal_places=2)", '{"result": 0.12}'],
  ["round_number(number=1234.5, decimal_places=-1)", '{"result": 1230.0}'],
  ["round_number(number=15, decimal_places=-1)", '{"result": 20}'],
  ["round_number(number=25, decimal_places=-1)", '{"result": 20}'],
  ["round_number(number=2.5, decimal_places=None)", '{"result": 2}'],
  ["round_number(number=1.5, decimal_places=1.0)", '{"error": "First input must be a number, second input must be an integer"}'],
  ["power(base=2, exponent=100)", '{"result": 1267650600228229401496703205376}'],
  ["power(base=2, exponent=-2)", '{"result": 0.25}'],
  ["power(base=1.1, exponent=2.2)", '{"result": 1.2332863005546628}'],
  ["power(base=0, exponent=-1)", 'Error during execution: 0.0 cannot be raised to a negative power'],
  ["power(base=-8, exponent=0.3333333333333333)", "{'result': (1.0000000000000002+1.7320508075688772j)}"],
  ["divide(a=1, b=3)", '{"result": 0.3333333333333333}'],
  ["divide(a=7, b=0)", '{"error": "Cannot divide by zero"}'],
  ["mean(numbers=[])", '{"error": "Cannot calculate mean of an empty list"}'],
  ["mean(numbers=[1, 2.5, True])", '{"result": 1.5}'],
  ["mean([37])", '{"result": 37.0}'],
  ["standard_deviation(numbers=[2,4,4,4,5,5,7,9])", '{"result": 2.0}'],
  ['si_unit_conversion(value=5, unit_in="km", unit_out="m")', '{"result": 5000.0}'],
  ['imperial_si_conversion(value=100, unit_in="celsius", unit_out="fahrenheit")', '{"result": 212.0}'],
  ['imperial_si_conversion(value=3, unit_in="kg", unit_out="kg")', '{"result": 3}'],
  ['add(a="ab", b="cd")', '{"result": "abcd"}'],
  ['add(a=1, b="x")', '{"error": "Both inputs must be numbers"}'],
  ["add(7965301193861766696858, -7)", '{"result": 7965301193861766696851}'],
  ["max_value(numbers=[1, 2.0, 2])", '{"result": 2.0}'],
  ['min_value(numbers="hello")', '{"result": "e"}'],
  ["sum_values(numbers=[0.1, 0.2, 0.3])", '{"result": 0.6000000000000001}'],
  ["percentage(part=1, whole=3)", '{"result": 33.33333333333333}'],
  ["absolute_value(number=-0.0)", '{"result": 0.0}'],
  ["mean(numbers=[1,2], extra=1)", "Error during execution: MathAPI.mean() got an unexpected keyword argument 'extra'"],
  ["mean()", "Error during execution: MathAPI.mean() missing 1 required positional argument: 'numbers'"],
  ["logarithm(1, 2, 3, 4)", 'Error during execution: MathAPI.logarithm() takes 4 positional arguments but 5 were given'],
];

describe('MathAPI matches BFCL (mpmath / Decimal / Python numbers)', () => {
  let env: BfclEnvironment;
  beforeAll(() => { env = new BfclEnvironment({ id: 'math', involved_classes: ['MathAPI'], initial_config: {} }); });
  it.each(CASES)('%s', (call, expected) => {
    expect(env.execPython(call).text).toBe(expected);
  });
  it('refuses a logarithm past 10,000 digits at once instead of computing for minutes (a fuzz-found hang)', () => {
    const t0 = performance.now();
    expect(env.execPython('logarithm(value=3, base=-178, precision=86426)').text).toBe('{"error": "precision too large for this port"}');
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
