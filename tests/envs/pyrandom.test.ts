import { describe, expect, it } from 'vitest';
import { PyRandom } from '../../src/envs/bfcl/pyrandom';

// Expected values were generated with CPython 3.11's random module.
describe('PyRandom (CPython MT19937)', () => {
  it('matches randint/random for the MessageAPI seed', () => {
    const r = new PyRandom(200191);
    expect(Array.from({ length: 5 }, () => r.randint(10000, 99999))).toEqual([67410, 41772, 24547, 24421, 60424]);
    expect(r.random()).toBe(0.9878793573409691);
  });

  it('matches the TradingBot timestamp draws', () => {
    const r = new PyRandom(1053520);
    const got = Array.from({ length: 3 }, () => r.randint(1725186600, 1725186600 + 86400));
    expect(got).toEqual([1725255615, 1725193594, 1725251388]);
  });

  it('matches uniform and getrandbits of various widths', () => {
    const r = new PyRandom(141053);
    expect(r.uniform(-10, 40)).toBe(36.63485703790535);
    expect(r.getrandbits(32)).toBe(3547616316);
    expect(r.getrandbits(40)).toBe(404861376796);
    expect(r.getrandbitsBig(64)).toBe(6338859997244715649n);
    expect(r.getrandbitsBig(100)).toBe(815619831790225286997079821310n);
  });

  it('matches randrange with a step, choice and a wide randint', () => {
    const r = new PyRandom(0);
    expect(r.random()).toBe(0.8444218515250481);
    expect(r.randrange(0, 100, 7)).toBe(84);
    expect(r.choice([...'abcdef'])).toBe('d');
    expect(r.randint(1, 2 ** 40)).toBe(567109562165);
  });

  it('seeds negative and multi-word ints like CPython', () => {
    expect(new PyRandom(-5).random()).toBe(0.6229016948897019);
    expect(new PyRandom(2n ** 70n + 12345n).random()).toBe(0.9602803546023011);
  });

  it('shuffles like CPython and clones its state', () => {
    const r = new PyRandom(42);
    const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    r.shuffle(x);
    expect(x).toEqual([7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
    const c = r.clone();
    expect(c.random()).toBe(r.random());
  });
});
