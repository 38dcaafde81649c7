/**
 * xoshiro128** (Blackman & Vigna), a small fast generator whose whole state is four 32-bit words, so a
 * checkpoint can store it and sampling resumes exactly. Seeded through SplitMix32 so that nearby seeds
 * give unrelated streams.
 */
export class Rng {
  private s: Uint32Array;

  constructor(seed: number) {
    this.s = new Uint32Array(4);
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
    if (this.s.every((w) => w === 0)) this.s[0] = 1;
  }

  static fromState(state: readonly number[]): Rng {
    const r = new Rng(0);
    r.s = Uint32Array.from(state);
    return r;
  }

  state(): number[] {
    return Array.from(this.s);
  }

  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  /** Uniform in [0, 1) with 32 random bits. */
  uniform(): number {
    return this.nextU32() / 4294967296;
  }

  /** Standard normal (Box–Muller; uses two uniforms, keeps no spare so the state stays four words). */
  normal(): number {
    const u = 1 - this.uniform();
    const v = this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
